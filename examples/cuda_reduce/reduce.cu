// A device-wide float sum whose speed hangs on two compile-time constants.
//
// BLOCK_SIZE (threads per block) and ITEMS_PER_THREAD (elements each thread loads per tile,
// unrolled, so that many loads are in flight at once) are template arguments set only by the
// preprocessor, as CUB's reduction policies set them: no argument or environment variable can
// change them, so benchspace builds one executable per pair (spaces/h200_reduce.json,
// "compile": ["BLOCK_SIZE", "ITEMS_PER_THREAD"]).
//
// The reduction is CUB's two-pass shape: pass 1 runs a grid of at most (resident blocks per
// SM x SMs) blocks, each striding over tiles of BLOCK_SIZE * ITEMS_PER_THREAD floats and
// writing one partial sum; pass 2 (one block of 1024 threads) sums the partials. Both passes
// are inside the timed region. The result is checked against the exact sum of the input
// (its values are multiples of 0.25, so the exact sum is known in closed form).
//
// Usage: reduce N   (prints a CSV table: name,gpu_time_us,gb_per_s,blocks,rel_error)
// gpu_time_us is the median over 7 samples of one reduction's time, measured with CUDA events
// around one launch of a CUDA graph of back-to-back reductions lasting at least 5 ms (after
// warm-up launches); blocks is the first pass's grid.
#ifndef BLOCK_SIZE
#include "benchspace_variant.hh"  // "deliver": "header" puts the #defines here
#endif
#ifndef ITEMS_PER_THREAD
#error "ITEMS_PER_THREAD must be defined (-DITEMS_PER_THREAD=...)"
#endif

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

static_assert(BLOCK_SIZE >= 32 && BLOCK_SIZE <= 1024 && BLOCK_SIZE % 32 == 0,
              "BLOCK_SIZE must be a multiple of 32 in [32, 1024]");
static_assert(ITEMS_PER_THREAD >= 1 && ITEMS_PER_THREAD <= 64,
              "ITEMS_PER_THREAD must be in [1, 64]");

namespace {

constexpr int kFinalThreads = 1024;

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
                         cudaGetErrorString(err_));                                   \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// The sum of one value per thread of the block; thread 0 holds it.
template <int Threads>
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float warps[Threads / 32];
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    v = threadIdx.x < Threads / 32 ? warps[threadIdx.x] : 0.0f;
    if (warp == 0) v = warp_sum(v);
    return v;
}

template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) partial_sums(const float* __restrict__ x, int64_t n,
                                                        float* __restrict__ partials) {
    constexpr int64_t tile = static_cast<int64_t>(Threads) * Items;
    float acc = 0.0f;
    int64_t base = static_cast<int64_t>(blockIdx.x) * tile;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * tile;
    for (; base + tile <= n; base += stride) {  // full tiles: every load unconditional
        float v[Items];
#pragma unroll
        for (int i = 0; i < Items; ++i) v[i] = __ldg(x + base + i * Threads + threadIdx.x);
#pragma unroll
        for (int i = 0; i < Items; ++i) acc += v[i];
    }
    if (base < n) {  // the one partial tile, owned by one block
#pragma unroll
        for (int i = 0; i < Items; ++i) {
            const int64_t at = base + i * Threads + threadIdx.x;
            if (at < n) acc += __ldg(x + at);
        }
    }
    acc = block_sum<Threads>(acc);
    if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

__global__ void __launch_bounds__(kFinalThreads) final_sum(const float* __restrict__ partials,
                                                           int count, float* __restrict__ out) {
    float acc = 0.0f;
    for (int i = threadIdx.x; i < count; i += kFinalThreads) acc += partials[i];
    acc = block_sum<kFinalThreads>(acc);
    if (threadIdx.x == 0) *out = acc;
}

__global__ void fill(float* x, int64_t n) {
    const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) x[i] = static_cast<float>(i % 7) * 0.25f;
}

double exact_sum(int64_t n) {  // sum of (i mod 7) / 4 over i < n
    const int64_t full = n / 7;
    const int64_t rest = n % 7;
    return (static_cast<double>(full) * 21.0 + static_cast<double>(rest * (rest - 1) / 2)) * 0.25;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    char* end = nullptr;
    const long long n = std::strtoll(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || n < 1 || n > (1LL << 31)) {
        std::fprintf(stderr, "%s: N must be an integer in [1, 2^31], not %s\n", argv[0], argv[1]);
        return 2;
    }
    auto kernel = partial_sums<BLOCK_SIZE, ITEMS_PER_THREAD>;
    int device = 0;
    int sms = 0;
    int resident = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, BLOCK_SIZE, 0));
    const int64_t tile = static_cast<int64_t>(BLOCK_SIZE) * ITEMS_PER_THREAD;
    const int64_t tiles = (n + tile - 1) / tile;
    const int blocks = static_cast<int>(std::min<int64_t>(tiles, static_cast<int64_t>(sms) * resident));

    float* x = nullptr;
    float* partials = nullptr;
    float* out = nullptr;
    CHECK(cudaMalloc(&x, static_cast<size_t>(n) * sizeof(float)));
    CHECK(cudaMalloc(&partials, static_cast<size_t>(blocks) * sizeof(float)));
    CHECK(cudaMalloc(&out, sizeof(float)));
    fill<<<static_cast<unsigned>((n + 255) / 256), 256>>>(x, n);
    CHECK(cudaGetLastError());

    // The timed work is a CUDA graph of `reps` back-to-back reductions, so that the host's
    // launch rate (a few microseconds a launch, slower while compiles load the CPU) never
    // bounds a small reduction's figure: the events time the device alone.
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    auto reduce_once = [&] {
        kernel<<<blocks, BLOCK_SIZE, 0, stream>>>(x, n, partials);
        final_sum<<<1, kFinalThreads, 0, stream>>>(partials, blocks, out);
    };
    auto make_graph = [&](int reps) {
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        for (int r = 0; r < reps; ++r) reduce_once();
        CHECK(cudaStreamEndCapture(stream, &graph));
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CHECK(cudaGraphDestroy(graph));
        return exec;
    };
    cudaEvent_t start;
    cudaEvent_t stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    auto time_ms = [&](cudaGraphExec_t exec) {
        CHECK(cudaEventRecord(start, stream));
        CHECK(cudaGraphLaunch(exec, stream));
        CHECK(cudaEventRecord(stop, stream));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        return static_cast<double>(ms);
    };
    CHECK(cudaDeviceSynchronize());  // the fill done
    constexpr int kProbe = 16;
    cudaGraphExec_t probe = make_graph(kProbe);
    for (int r = 0; r < 3; ++r) time_ms(probe);  // warm-up (clocks, caches, lazy loading)
    const double probe_ms = time_ms(probe) / kProbe;
    CHECK(cudaGraphExecDestroy(probe));
    const int reps = static_cast<int>(
        std::min(4096.0, std::max(static_cast<double>(kProbe), std::ceil(5.0 / probe_ms))));
    cudaGraphExec_t exec = make_graph(reps);  // >= 5 ms per sample (at most 4096 reductions)
    time_ms(exec);
    std::vector<double> samples;
    for (int k = 0; k < 7; ++k) samples.push_back(1e3 * time_ms(exec) / reps);
    std::sort(samples.begin(), samples.end());
    const double us = samples[samples.size() / 2];
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGetLastError());

    float got = 0.0f;
    CHECK(cudaMemcpy(&got, out, sizeof(float), cudaMemcpyDeviceToHost));
    const double want = exact_sum(n);
    const double rel = std::fabs(static_cast<double>(got) - want) / std::max(want, 1.0);
    CHECK(cudaFree(x));
    CHECK(cudaFree(partials));
    CHECK(cudaFree(out));
    CHECK(cudaStreamDestroy(stream));
    if (!(rel <= 1e-4)) {  // a wrong sum is no figure to tune on
        std::fprintf(stderr, "%s: wrong sum %.9g (exact %.9g, relative error %.3g)\n", argv[0],
                     static_cast<double>(got), want, rel);
        return 1;
    }
    const double gbps = static_cast<double>(n) * sizeof(float) / (us * 1e-6) / 1e9;
    std::printf("name,gpu_time_us,gb_per_s,blocks,rel_error\n");
    std::printf("reduce/%lld,%.4f,%.2f,%d,%.3g\n", n, us, gbps, blocks, rel);
    return 0;
}
