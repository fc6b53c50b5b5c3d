// Per-kernel glue compiled into every generated library: builds GemmUniversalAdapter arguments
// for one 3.x kernel and exposes it through the function table behind cb_abi.h.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <cuda_runtime.h>

#include "cb_abi.h"
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/kernel_hardware_info.h"
#include "cutlass/util/packed_stride.hpp"

namespace cb {

// Detects the runtime knobs of a tile scheduler's Arguments: raster order and max swizzle
// (persistent and Stream-K schedulers), splits and decomposition mode (Stream-K only).
template <class T, class = void>
struct has_raster_order : std::false_type {};
template <class T>
struct has_raster_order<T, std::void_t<decltype(std::declval<T&>().raster_order)>>
    : std::true_type {};

template <class T, class = void>
struct has_max_swizzle : std::false_type {};
template <class T>
struct has_max_swizzle<T, std::void_t<decltype(std::declval<T&>().max_swizzle_size)>>
    : std::true_type {};

template <class T, class = void>
struct has_splits : std::false_type {};
template <class T>
struct has_splits<T, std::void_t<decltype(std::declval<T&>().splits)>> : std::true_type {};

template <class T, class = void>
struct has_decomposition : std::false_type {};
template <class T>
struct has_decomposition<T, std::void_t<decltype(std::declval<T&>().decomposition_mode)>>
    : std::true_type {};

struct Entry {
  const char* name;
  int (*info)(cb_info_t*);
  int (*can_implement)(const cb_problem_t*);
  int (*workspace_size)(const cb_problem_t*, size_t*);
  int (*run)(const cb_problem_t*, void*, cudaStream_t, int*);
};

template <class Kernel>
struct Runner {
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
  using GemmKernel = typename Gemm::GemmKernel;
  using Arguments = typename Gemm::Arguments;
  using ElementA = typename Gemm::ElementA;
  using ElementB = typename Gemm::ElementB;
  using ElementD = typename Gemm::ElementD;
  using StrideA = typename GemmKernel::StrideA;
  using StrideB = typename GemmKernel::StrideB;
  using StrideC = typename GemmKernel::StrideC;
  using StrideD = typename GemmKernel::StrideD;
  using SchedulerArguments = std::remove_reference_t<decltype(std::declval<Arguments&>().scheduler)>;
  static constexpr bool kHasRaster = has_raster_order<SchedulerArguments>::value;
  static constexpr bool kHasSwizzle = has_max_swizzle<SchedulerArguments>::value;
  static constexpr bool kHasSplits = has_splits<SchedulerArguments>::value;
  static constexpr bool kHasDecomposition = has_decomposition<SchedulerArguments>::value;

  // Fills args; CB_KNOB_UNSUPPORTED when a non-default knob is asked of a scheduler without it.
  static int make_arguments(const cb_problem_t& p, Arguments& args) {
    const int m = p.m, n = p.n, k = p.k;
    StrideA stride_a = cutlass::make_cute_packed_stride(StrideA{}, cute::make_shape(m, k, 1));
    StrideB stride_b = cutlass::make_cute_packed_stride(StrideB{}, cute::make_shape(n, k, 1));
    StrideC stride_c = cutlass::make_cute_packed_stride(StrideC{}, cute::make_shape(m, n, 1));
    StrideD stride_d = cutlass::make_cute_packed_stride(StrideD{}, cute::make_shape(m, n, 1));
    cutlass::KernelHardwareInfo hw_info;
    hw_info.device_id = p.device_id;
    hw_info.sm_count = p.sm_count;
    args = Arguments{cutlass::gemm::GemmUniversalMode::kGemm,
                     {m, n, k, 1},
                     {static_cast<const ElementA*>(p.a), stride_a,
                      static_cast<const ElementB*>(p.b), stride_b},
                     {{}, nullptr, stride_c, static_cast<ElementD*>(p.d), stride_d},
                     hw_info};
    args.epilogue.thread.alpha = 1.0f;
    args.epilogue.thread.beta = 0.0f;
    if constexpr (kHasRaster) {
      using Raster = std::remove_reference_t<decltype(args.scheduler.raster_order)>;
      switch (p.raster) {
        case CB_RASTER_ALONG_M: args.scheduler.raster_order = Raster::AlongM; break;
        case CB_RASTER_ALONG_N: args.scheduler.raster_order = Raster::AlongN; break;
        default: args.scheduler.raster_order = Raster::Heuristic; break;
      }
    } else if (p.raster != CB_RASTER_HEURISTIC) {
      return CB_KNOB_UNSUPPORTED;
    }
    if constexpr (kHasSwizzle) {
      args.scheduler.max_swizzle_size = p.swizzle;
    } else if (p.swizzle != 1) {
      return CB_KNOB_UNSUPPORTED;
    }
    if constexpr (kHasSplits) {
      args.scheduler.splits = p.splits;
    } else if (p.splits != 1) {
      return CB_KNOB_UNSUPPORTED;
    }
    if constexpr (kHasDecomposition) {
      using Decomposition = std::remove_reference_t<decltype(args.scheduler.decomposition_mode)>;
      switch (p.decomposition) {
        case CB_DECOMP_DATA_PARALLEL:
          args.scheduler.decomposition_mode = Decomposition::DataParallel;
          break;
        case CB_DECOMP_SPLIT_K: args.scheduler.decomposition_mode = Decomposition::SplitK; break;
        case CB_DECOMP_STREAM_K: args.scheduler.decomposition_mode = Decomposition::StreamK; break;
        default: args.scheduler.decomposition_mode = Decomposition::Heuristic; break;
      }
    } else if (p.decomposition != CB_DECOMP_HEURISTIC) {
      return CB_KNOB_UNSUPPORTED;
    }
    return CB_OK;
  }

  static int info(cb_info_t* out) {
    using TileShape = typename GemmKernel::TileShape;
    using ClusterShape = typename GemmKernel::DispatchPolicy::ClusterShape;
    out->smem_bytes = static_cast<int>(GemmKernel::SharedStorageSize);
    out->stages = static_cast<int>(GemmKernel::DispatchPolicy::Stages);
    out->threads = static_cast<int>(GemmKernel::MaxThreadsPerBlock);
    out->tile_m = static_cast<int>(cute::size<0>(TileShape{}));
    out->tile_n = static_cast<int>(cute::size<1>(TileShape{}));
    out->tile_k = static_cast<int>(cute::size<2>(TileShape{}));
    out->cluster_m = static_cast<int>(cute::size<0>(ClusterShape{}));
    out->cluster_n = static_cast<int>(cute::size<1>(ClusterShape{}));
    out->has_raster = kHasRaster ? 1 : 0;
    out->has_swizzle = kHasSwizzle ? 1 : 0;
    out->has_splits = kHasSplits ? 1 : 0;
    out->has_decomposition = kHasDecomposition ? 1 : 0;
    cudaFuncAttributes attr{};
    cudaError_t err = cudaFuncGetAttributes(&attr, cutlass::device_kernel<GemmKernel>);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();  // no device here: report the static part only
      out->regs = -1;
      out->local_bytes = -1;
      return static_cast<int>(err);
    }
    out->regs = attr.numRegs;
    out->local_bytes = static_cast<int>(attr.localSizeBytes);
    return 0;
  }

  static int can_implement(const cb_problem_t* p) {
    Arguments args;
    int rc = make_arguments(*p, args);
    if (rc != CB_OK) return rc;
    return Gemm::can_implement(args) == cutlass::Status::kSuccess ? CB_OK : CB_CANNOT_IMPLEMENT;
  }

  static int workspace_size(const cb_problem_t* p, size_t* bytes) {
    Arguments args;
    int rc = make_arguments(*p, args);
    if (rc != CB_OK) return rc;
    *bytes = Gemm::get_workspace_size(args);
    return CB_OK;
  }

  static int run(const cb_problem_t* p, void* workspace, cudaStream_t stream, int* status) {
    Arguments args;
    int rc = make_arguments(*p, args);
    if (rc != CB_OK) return rc;
    Gemm gemm;
    cutlass::Status s = gemm.run(args, workspace, stream);
    *status = static_cast<int>(s);
    return s == cutlass::Status::kSuccess ? CB_OK : CB_RUN_FAILED;
  }

  static Entry entry(const char* name) {
    return Entry{name, &info, &can_implement, &workspace_size, &run};
  }
};

}  // namespace cb

// Defines the extern "C" functions of cb_abi.h over a static array of cb::Entry.
#define CB_DEFINE_LIBRARY(ENTRIES)                                                          \
  namespace {                                                                                \
  constexpr int kCbCount = static_cast<int>(sizeof(ENTRIES) / sizeof(ENTRIES[0]));           \
  int cb_last_status_value = 0;                                                              \
  bool cb_bad(int index) { return index < 0 || index >= kCbCount; }                          \
  }                                                                                          \
  extern "C" int cb_abi_version(void) { return CB_ABI_VERSION; }                             \
  extern "C" int cb_num_kernels(void) { return kCbCount; }                                   \
  extern "C" const char* cb_kernel_name(int index) {                                         \
    return cb_bad(index) ? nullptr : ENTRIES[index].name;                                    \
  }                                                                                          \
  extern "C" int cb_info(int index, cb_info_t* out) {                                        \
    return cb_bad(index) ? CB_BAD_INDEX : ENTRIES[index].info(out);                          \
  }                                                                                          \
  extern "C" int cb_can_implement(int index, const cb_problem_t* problem) {                  \
    return cb_bad(index) ? CB_BAD_INDEX : ENTRIES[index].can_implement(problem);             \
  }                                                                                          \
  extern "C" int cb_workspace_size(int index, const cb_problem_t* problem, size_t* bytes) {  \
    return cb_bad(index) ? CB_BAD_INDEX : ENTRIES[index].workspace_size(problem, bytes);     \
  }                                                                                          \
  extern "C" int cb_run(int index, const cb_problem_t* problem, void* workspace,             \
                        cudaStream_t stream) {                                               \
    if (cb_bad(index)) return CB_BAD_INDEX;                                                  \
    return ENTRIES[index].run(problem, workspace, stream, &cb_last_status_value);            \
  }                                                                                          \
  extern "C" int cb_last_status(void) { return cb_last_status_value; }
