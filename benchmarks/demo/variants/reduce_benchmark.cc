// A compile-time-only knob: the number of independent accumulators of a float sum.
//
// REDUCE_LANES exists only as a preprocessor constant (a template argument inside): no
// argument or environment variable can change it, so benchspace builds one executable per
// value (spaces/demo_variants.json, "compile": ["REDUCE_LANES"]). Without -ffast-math the
// compiler may not reassociate float additions, so one accumulator waits for every add
// (a latency chain), and several lanes let adds overlap, until the lanes spill registers.
//
// Usage: reduce_benchmark N   (prints a CSV row: name,cpu_time_ns,sum)
// cpu_time_ns is the process CPU time of one sum of N floats, the median of 5 timings of at
// least REDUCE_SAMPLE_S seconds each (default 0.02; benchmarks/variant_pipeline.py builds
// with a longer one).
#ifndef REDUCE_LANES
#include "benchspace_variant.hh"  // "deliver": "header" puts the #defines here
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#ifndef REDUCE_SAMPLE_S
#define REDUCE_SAMPLE_S 0.02
#endif

static_assert(REDUCE_LANES >= 1 && REDUCE_LANES <= 64, "REDUCE_LANES must be in [1, 64]");

namespace {

template <int Lanes>
float sum(const float* x, int64_t n) {
    float acc[Lanes] = {};
    int64_t i = 0;
    for (; i + Lanes <= n; i += Lanes) {
        for (int l = 0; l < Lanes; ++l) acc[l] += x[i + l];
    }
    float total = 0.0f;
    for (int l = 0; l < Lanes; ++l) total += acc[l];
    for (; i < n; ++i) total += x[i];
    return total;
}

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    char* end = nullptr;
    const long long n = std::strtoll(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || n < 1 || n > (1LL << 28)) {
        std::fprintf(stderr, "%s: N must be an integer in [1, 2^28], not %s\n", argv[0], argv[1]);
        return 2;
    }
    std::vector<float> x(static_cast<size_t>(n));
    for (long long i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i % 7) * 0.25f;
    volatile float sink = 0.0f;
    int64_t reps = 1;
    for (;;) {  // enough sums per timing for REDUCE_SAMPLE_S of CPU time
        const double t0 = cpu_seconds();
        for (int64_t r = 0; r < reps; ++r) sink = sink + sum<REDUCE_LANES>(x.data(), n);
        if (cpu_seconds() - t0 >= REDUCE_SAMPLE_S) break;
        reps *= 2;
    }
    std::vector<double> times;
    for (int k = 0; k < 5; ++k) {
        const double t0 = cpu_seconds();
        for (int64_t r = 0; r < reps; ++r) sink = sink + sum<REDUCE_LANES>(x.data(), n);
        times.push_back((cpu_seconds() - t0) / static_cast<double>(reps));
    }
    std::sort(times.begin(), times.end());
    std::printf("name,cpu_time_ns,sum\nBM_reduce/%lld,%.3f,%g\n", n, times[2] * 1e9,
                static_cast<double>(sink));
    return 0;
}
