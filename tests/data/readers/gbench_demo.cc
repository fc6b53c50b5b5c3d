// A small Google Benchmark program whose JSON output the reader tests record and re-read.
// Build: g++ -O2 -std=c++17 gbench_demo.cc -lbenchmark -lpthread -o gbench_demo
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

// Blocked sum: "n" elements in blocks of "block"; a user counter reports the block size.
static void BM_BlockedSum(benchmark::State& state) {
    const int64_t n = state.range(0);
    const int64_t block = state.range(1);
    std::vector<float> data(static_cast<size_t>(n), 1.0f);
    for (auto _ : state) {
        float acc = 0.0f;
        for (int64_t i = 0; i < n; i += block) {
            const int64_t end = std::min(n, i + block);
            for (int64_t j = i; j < end; ++j) acc += data[static_cast<size_t>(j)];
        }
        benchmark::DoNotOptimize(acc);
    }
    state.SetItemsProcessed(state.iterations() * n);
    state.counters["block"] = static_cast<double>(block);
    state.counters["elements_per_s"] =
        benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_BlockedSum)->ArgNames({"n", "block"})->Args({4096, 64})->Args({4096, 512});

// A second family in the same executable, reported in microseconds, unnamed argument.
static void BM_Iota(benchmark::State& state) {
    std::vector<int> data(static_cast<size_t>(state.range(0)));
    for (auto _ : state) {
        std::iota(data.begin(), data.end(), 0);
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_Iota)->Arg(2048)->Unit(benchmark::kMicrosecond);

// A configuration that cannot run reports an error instead of a time.
static void BM_Unsupported(benchmark::State& state) {
    state.SkipWithError("block size not instantiated");
    for (auto _ : state) {
    }
}
BENCHMARK(BM_Unsupported)->Arg(3);

BENCHMARK_MAIN();
