// matmul_benchmark [gbench flags] n block
//
// BM_matmul/n:N/block:B times C = A * B (n x n, double) with the tile size given
// explicitly, so the sweep reads the kernel's own preference for MATMUL_BLOCK.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench_cli.hh"
#include "benchspace_demo/matmul.hh"

namespace bench = benchspace_demo::bench;

namespace {

const std::vector<bench::Param> kParams = {{"n", 1, 4096}, {"block", 1, 4096}};

// Freivalds' check: C x == A (B x) for a random x, in O(n^2).
void check_product(int64_t n, const std::vector<double>& a, const std::vector<double>& b,
                   const std::vector<double>& c) {
    const std::vector<double> x = bench::random_values(n, 7);
    std::vector<double> bx(static_cast<size_t>(n), 0.0);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) bx[i] += b[i * n + j] * x[j];
    double worst = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        double abx = 0.0;
        double cx = 0.0;
        for (int64_t j = 0; j < n; ++j) {
            abx += a[i * n + j] * bx[j];
            cx += c[i * n + j] * x[j];
        }
        worst = std::max(worst, std::fabs(abx - cx));
    }
    if (!(worst <= 1e-9 * static_cast<double>(n * n))) {
        bench::wrong_result("matmul n=" + std::to_string(n) + ": |Cx - A(Bx)| = " +
                            std::to_string(worst));
    }
}

void bm_matmul(benchmark::State& state) {
    const int64_t n = state.range(0);
    const int64_t block = state.range(1);
    const std::vector<double> a = bench::random_values(n * n, 1);
    const std::vector<double> b = bench::random_values(n * n, 2);
    std::vector<double> c(static_cast<size_t>(n * n));
    benchspace_demo::matmul(n, a.data(), b.data(), c.data(), block);
    check_product(n, a, b, c);
    for (auto _ : state) {
        benchspace_demo::matmul(n, a.data(), b.data(), c.data(), block);
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) *
                         static_cast<double>(n);
    state.counters["GFLOP/s"] = benchmark::Counter(
        flops * 1e-9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

int main(int argc, char** argv) {
    bench::describe_if_asked(argc, argv, kParams, {"BM_matmul"});
    benchmark::Initialize(&argc, argv);
    const std::vector<int64_t> args = bench::positional_args(argc, argv, kParams);
    const std::vector<std::vector<int64_t>> runs =
        args.empty() ? std::vector<std::vector<int64_t>>{{64, 16}, {64, 64}, {256, 32}, {256, 128}}
                     : std::vector<std::vector<int64_t>>{args};
    bench::register_runs("BM_matmul", bm_matmul, kParams, runs);
    return bench::run_benchmarks();
}
