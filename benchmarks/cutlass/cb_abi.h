// The C interface every generated kernel library (libcb_<hash>.so) exports and cutlass_bench
// loads with dlopen. Plain C types only, so the driver needs no CUTLASS headers.
#ifndef CB_ABI_H
#define CB_ABI_H

#include <stddef.h>

#include <cuda_runtime.h>

#define CB_ABI_VERSION 2

// Raster order of the persistent tile schedulers (Arguments.scheduler.raster_order).
#define CB_RASTER_HEURISTIC 0
#define CB_RASTER_ALONG_M 1
#define CB_RASTER_ALONG_N 2

// Decomposition of the Stream-K tile scheduler (Arguments.scheduler.decomposition_mode).
#define CB_DECOMP_HEURISTIC 0
#define CB_DECOMP_DATA_PARALLEL 1
#define CB_DECOMP_SPLIT_K 2
#define CB_DECOMP_STREAM_K 3

// Return codes of cb_can_implement, cb_workspace_size and cb_run.
#define CB_OK 0
#define CB_CANNOT_IMPLEMENT 1  // the kernel's can_implement refused the problem
#define CB_KNOB_UNSUPPORTED 2  // a knob asked of a scheduler that has no such field
#define CB_RUN_FAILED 3        // initialize or launch failed; see cb_last_status()
#define CB_BAD_INDEX 4

#ifdef __cplusplus
extern "C" {
#endif

// One problem: D (column-major M x N, bf16) = A (row-major M x K) * B (column-major K x N).
typedef struct cb_problem {
  int m;
  int n;
  int k;
  const void* a;
  const void* b;
  void* d;
  int raster;   // CB_RASTER_*
  int swizzle;  // max_swizzle_size: 1, 2, 4 or 8
  int splits;         // Stream-K scheduler: split-K factor (1: none)
  int decomposition;  // Stream-K scheduler: CB_DECOMP_*
  int device_id;
  int sm_count;  // 0: let CUTLASS query it (slow: once per call)
} cb_problem_t;

// Static facts about one compiled kernel.
typedef struct cb_info {
  int smem_bytes;   // GemmKernel::SharedStorageSize
  int stages;       // mainloop pipeline stages (the automatic carve-out's choice)
  int threads;      // GemmKernel::MaxThreadsPerBlock
  int tile_m;
  int tile_n;
  int tile_k;
  int cluster_m;
  int cluster_n;
  int has_raster;   // the tile scheduler's Arguments have raster_order
  int has_swizzle;  // ... and max_swizzle_size
  int has_splits;   // ... and splits (the Stream-K scheduler)
  int has_decomposition;  // ... and decomposition_mode (the Stream-K scheduler)
  int regs;         // cudaFuncGetAttributes numRegs; -1 when no device answered
  int local_bytes;  // cudaFuncGetAttributes localSizeBytes; -1 when no device answered
} cb_info_t;

typedef int (*cb_abi_version_fn)(void);
typedef int (*cb_num_kernels_fn)(void);
typedef const char* (*cb_kernel_name_fn)(int index);
typedef int (*cb_info_fn)(int index, cb_info_t* out);
typedef int (*cb_can_implement_fn)(int index, const cb_problem_t* problem);
typedef int (*cb_workspace_size_fn)(int index, const cb_problem_t* problem, size_t* bytes);
typedef int (*cb_run_fn)(int index, const cb_problem_t* problem, void* workspace,
                         cudaStream_t stream);
typedef int (*cb_last_status_fn)(void);

int cb_abi_version(void);
int cb_num_kernels(void);
const char* cb_kernel_name(int index);
// Fills *out; returns the cudaError_t of cudaFuncGetAttributes (regs/local_bytes are -1 then).
int cb_info(int index, cb_info_t* out);
int cb_can_implement(int index, const cb_problem_t* problem);
int cb_workspace_size(int index, const cb_problem_t* problem, size_t* bytes);
// GemmUniversalAdapter::run(args, workspace, stream): initialize (Stream-K zeroes its
// workspace here) and launch, both enqueued on stream.
int cb_run(int index, const cb_problem_t* problem, void* workspace, cudaStream_t stream);
// The cutlass::Status of the last failed cb_run in this library (0 when none failed).
int cb_last_status(void);

#ifdef __cplusplus
}
#endif

#endif  // CB_ABI_H
