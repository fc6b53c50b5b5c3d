// lu_benchmark [gbench flags] n
//
// BM_lu/n:N times the blocked LU factorisation of a random n x n matrix. Its
// panel width has no argument: it is tuning::matmul_block_for_n(n), so
// BENCHSPACE_DEMO_TUNE_MATMUL_BLOCK moves it. LU is the larger consumer of the
// matmul tile constant; the "block" counter reports the width actually used.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "bench_cli.hh"
#include "benchspace_demo/lu.hh"
#include "benchspace_demo/tuning_params.hh"

namespace bench = benchspace_demo::bench;

namespace {

const std::vector<bench::Param> kParams = {{"n", 1, 4096}};

// Solves A x = b with the factors and checks the scaled residual of the original A.
void check_factors(int64_t n, const std::vector<double>& a0, const std::vector<double>& lu,
                   const std::vector<int64_t>& piv) {
    const std::vector<double> b = bench::random_values(n, 11);
    std::vector<double> x = b;
    benchspace_demo::lu_solve(n, lu.data(), n, piv.data(), x.data());
    double residual = 0.0;
    double norm_a = 0.0;
    double norm_x = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        double r = -b[i];
        double row = 0.0;
        for (int64_t j = 0; j < n; ++j) {
            r += a0[i * n + j] * x[j];
            row += std::fabs(a0[i * n + j]);
        }
        residual = std::max(residual, std::fabs(r));
        norm_a = std::max(norm_a, row);
        norm_x = std::max(norm_x, std::fabs(x[i]));
    }
    const double scaled = residual / (norm_a * norm_x * static_cast<double>(n) *
                                      std::numeric_limits<double>::epsilon());
    if (!(scaled < 100.0)) {
        bench::wrong_result("lu n=" + std::to_string(n) + ": scaled residual " +
                            std::to_string(scaled));
    }
}

void bm_lu(benchmark::State& state) {
    const int64_t n = state.range(0);
    const std::vector<double> a0 = bench::random_values(n * n, 3);
    std::vector<double> a = a0;
    std::vector<int64_t> piv(static_cast<size_t>(n));
    if (benchspace_demo::lu_factor(n, a.data(), n, piv.data()) != 0) {
        bench::wrong_result("lu n=" + std::to_string(n) + ": singular factor");
    }
    check_factors(n, a0, a, piv);
    // The copy is O(n^2) against O(n^3) factorisation work and the same for every block.
    for (auto _ : state) {
        std::copy(a0.begin(), a0.end(), a.begin());
        benchspace_demo::lu_factor(n, a.data(), n, piv.data());
        benchmark::DoNotOptimize(a.data());
        benchmark::ClobberMemory();
    }
    const double flops = 2.0 / 3.0 * static_cast<double>(n) * static_cast<double>(n) *
                         static_cast<double>(n);
    state.counters["GFLOP/s"] = benchmark::Counter(
        flops * 1e-9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["block"] = benchspace_demo::tuning::matmul_block_for_n(n);
}

}  // namespace

int main(int argc, char** argv) {
    bench::describe_if_asked(argc, argv, kParams, {"BM_lu"});
    benchmark::Initialize(&argc, argv);
    const std::vector<int64_t> args = bench::positional_args(argc, argv, kParams);
    const std::vector<std::vector<int64_t>> runs =
        args.empty() ? std::vector<std::vector<int64_t>>{{64}, {256}}
                     : std::vector<std::vector<int64_t>>{args};
    bench::register_runs("BM_lu", bm_lu, kParams, runs);
    return bench::run_benchmarks();
}
