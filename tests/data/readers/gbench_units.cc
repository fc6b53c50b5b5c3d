// Google Benchmark program for the reader's unit and family tests.
// Build: g++ -O2 -std=c++17 gbench_units.cc -lbenchmark -lpthread -o gbench_units
// Three families sleep 20 ms, 4 ms and 12 ms and report in ms, us and ns: read as printed
// (20, ~4000, ~1.2e7) the 20 ms one would win under "min"; in one unit the 4 ms one does.
// BM_Short and BM_Long are both named BM_Twice (two families of one name, 1 ms and 15 ms): two runs, not two
// repetitions of one.
#include <benchmark/benchmark.h>

#include <chrono>
#include <thread>

static void sleep_ms(benchmark::State& state) {
    for (auto _ : state) {
        std::this_thread::sleep_for(std::chrono::milliseconds(state.range(0)));
    }
}

static void BM_InMs(benchmark::State& state) { sleep_ms(state); }
BENCHMARK(BM_InMs)->Arg(20)->Iterations(2)->Unit(benchmark::kMillisecond);

static void BM_InUs(benchmark::State& state) { sleep_ms(state); }
BENCHMARK(BM_InUs)->Arg(4)->Iterations(2)->Unit(benchmark::kMicrosecond);

static void BM_InNs(benchmark::State& state) { sleep_ms(state); }
BENCHMARK(BM_InNs)->Arg(12)->Iterations(2)->Unit(benchmark::kNanosecond);

static void fixed_sleep(benchmark::State& state, int ms) {
    for (auto _ : state) {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
}
static void BM_Short(benchmark::State& state) { fixed_sleep(state, 1); }
BENCHMARK(BM_Short)->Name("BM_Twice")->Iterations(2);
static void BM_Long(benchmark::State& state) { fixed_sleep(state, 15); }
BENCHMARK(BM_Long)->Name("BM_Twice")->Iterations(2);

BENCHMARK_MAIN();
