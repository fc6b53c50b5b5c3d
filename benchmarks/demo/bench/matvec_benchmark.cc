// matvec_benchmark [gbench flags] n
//
// BM_matvec/n:N times y = A x (n x n, double). The accumulator lanes of its dot
// products have no argument: they come from tuning::dot_lanes_for_n(n), so the
// only way to sweep them is BENCHSPACE_DEMO_TUNE_DOT_LANES in the environment.
// The "lanes" counter reports the value actually used.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench_cli.hh"
#include "benchspace_demo/matvec.hh"
#include "benchspace_demo/tuning_params.hh"

namespace bench = benchspace_demo::bench;

namespace {

const std::vector<bench::Param> kParams = {{"n", 1, 16384}};

void check_matvec(int64_t n, const std::vector<double>& a, const std::vector<double>& x,
                  const std::vector<double>& y) {
    double worst = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        double s = 0.0;
        for (int64_t j = 0; j < n; ++j) s += a[i * n + j] * x[j];
        worst = std::max(worst, std::fabs(s - y[i]));
    }
    if (!(worst <= 1e-12 * static_cast<double>(n))) {
        bench::wrong_result("matvec n=" + std::to_string(n) + ": max error " +
                            std::to_string(worst));
    }
}

void bm_matvec(benchmark::State& state) {
    const int64_t n = state.range(0);
    const std::vector<double> a = bench::random_values(n * n, 4);
    const std::vector<double> x = bench::random_values(n, 5);
    std::vector<double> y(static_cast<size_t>(n));
    benchspace_demo::matvec(n, a.data(), x.data(), y.data());
    check_matvec(n, a, x, y);
    for (auto _ : state) {
        benchspace_demo::matvec(n, a.data(), x.data(), y.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n);
    state.counters["GFLOP/s"] = benchmark::Counter(
        flops * 1e-9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["lanes"] = benchspace_demo::tuning::dot_lanes_for_n(n);
}

}  // namespace

int main(int argc, char** argv) {
    bench::describe_if_asked(argc, argv, kParams, {"BM_matvec"});
    benchmark::Initialize(&argc, argv);
    const std::vector<int64_t> args = bench::positional_args(argc, argv, kParams);
    const std::vector<std::vector<int64_t>> runs =
        args.empty() ? std::vector<std::vector<int64_t>>{{64}, {512}}
                     : std::vector<std::vector<int64_t>>{args};
    bench::register_runs("BM_matvec", bm_matvec, kParams, runs);
    return bench::run_benchmarks();
}
