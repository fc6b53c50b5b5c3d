// sort_benchmark [gbench flags] n batch cutoff branchless
//
// Sorts `batch` independent arrays of n int32 keys per iteration with the
// merge sort, its insertion cutoff and merge variant given explicitly. Two
// benchmarks share every argument list, so a space must pick one with `row`:
//   BM_sort_random/...  uniformly random keys (the branchless merge pays off)
//   BM_sort_runs/...    nearly sorted keys (the branch predictor wins)
#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench_cli.hh"
#include "benchspace_demo/sort.hh"

namespace bench = benchspace_demo::bench;

namespace {

const std::vector<bench::Param> kParams = {
    {"n", 1, 1 << 22}, {"batch", 1, 1 << 20}, {"cutoff", 0, 4096}, {"branchless", 0, 1}};

enum class Keys { random, runs };

std::vector<int32_t> make_keys(int64_t n, int64_t batch, Keys kind) {
    std::mt19937 gen(6);
    std::vector<int32_t> keys(static_cast<size_t>(n * batch));
    if (kind == Keys::random) {
        std::uniform_int_distribution<int32_t> dist(-1000000000, 1000000000);
        for (int32_t& k : keys) k = dist(gen);
    } else {
        // Ascending with small local disorder: most merges are short or skipped.
        std::uniform_int_distribution<int32_t> jitter(0, 24);
        for (int64_t i = 0; i < n * batch; ++i) {
            keys[i] = static_cast<int32_t>((i % n) * 8) + jitter(gen);
        }
    }
    return keys;
}

void check_sorted(int64_t n, int64_t batch, const std::vector<int32_t>& input,
                  const std::vector<int32_t>& output) {
    std::vector<int32_t> expected = input;
    for (int64_t b = 0; b < batch; ++b) {
        std::sort(expected.begin() + b * n, expected.begin() + (b + 1) * n);
    }
    if (expected != output) {
        bench::wrong_result("merge_sort n=" + std::to_string(n) + " batch=" +
                            std::to_string(batch) + ": output differs from std::sort");
    }
}

void bm_sort(benchmark::State& state, Keys kind) {
    const int64_t n = state.range(0);
    const int64_t batch = state.range(1);
    const int64_t cutoff = state.range(2);
    const bool branchless = state.range(3) != 0;
    const std::vector<int32_t> input = make_keys(n, batch, kind);
    std::vector<int32_t> work = input;
    std::vector<int32_t> scratch(static_cast<size_t>(n));
    for (int64_t b = 0; b < batch; ++b) {
        benchspace_demo::merge_sort(work.data() + b * n, scratch.data(), n, cutoff, branchless);
    }
    check_sorted(n, batch, input, work);
    // Restoring the keys is a memcpy, small against the sort and equal for every knob.
    for (auto _ : state) {
        std::memcpy(work.data(), input.data(), input.size() * sizeof(int32_t));
        for (int64_t b = 0; b < batch; ++b) {
            benchspace_demo::merge_sort(work.data() + b * n, scratch.data(), n, cutoff,
                                        branchless);
        }
        benchmark::DoNotOptimize(work.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * n * batch);
}

}  // namespace

int main(int argc, char** argv) {
    bench::describe_if_asked(argc, argv, kParams, {"BM_sort_random", "BM_sort_runs"});
    benchmark::Initialize(&argc, argv);
    const std::vector<int64_t> args = bench::positional_args(argc, argv, kParams);
    const std::vector<std::vector<int64_t>> runs =
        args.empty() ? std::vector<std::vector<int64_t>>{{64, 1024, 16, 0},
                                                         {64, 1024, 16, 1},
                                                         {512, 128, 16, 0},
                                                         {512, 128, 16, 1}}
                     : std::vector<std::vector<int64_t>>{args};
    bench::register_runs(
        "BM_sort_random", [](benchmark::State& s) { bm_sort(s, Keys::random); }, kParams, runs);
    bench::register_runs(
        "BM_sort_runs", [](benchmark::State& s) { bm_sort(s, Keys::runs); }, kParams, runs);
    return bench::run_benchmarks();
}
