#include "benchspace_demo/matvec.hh"

#include "benchspace_demo/tuning_params.hh"

namespace benchspace_demo {
namespace {

// Lanes is a template parameter so the accumulators live in registers; without
// -ffast-math the compiler may not reassociate, so one lane is latency-bound.
template <int Lanes>
double dot_lanes(const double* __restrict x, const double* __restrict y, int64_t len) noexcept {
    double acc[Lanes] = {};
    int64_t i = 0;
    for (; i + Lanes <= len; i += Lanes) {
        for (int l = 0; l < Lanes; ++l) {
            acc[l] += x[i + l] * y[i + l];
        }
    }
    double sum = 0.0;
    for (int l = 0; l < Lanes; ++l) sum += acc[l];
    for (; i < len; ++i) sum += x[i] * y[i];
    return sum;
}

}  // namespace

double dot(const double* x, const double* y, int64_t len, int64_t lanes) noexcept {
    if (lanes >= 16) return dot_lanes<16>(x, y, len);
    if (lanes >= 8) return dot_lanes<8>(x, y, len);
    if (lanes >= 4) return dot_lanes<4>(x, y, len);
    if (lanes >= 2) return dot_lanes<2>(x, y, len);
    return dot_lanes<1>(x, y, len);
}

void matvec(int64_t n, const double* a, const double* x, double* y) noexcept {
    const int64_t lanes = tuning::dot_lanes_for_n(n);
    for (int64_t i = 0; i < n; ++i) {
        y[i] = dot(a + i * n, x, n, lanes);
    }
}

}  // namespace benchspace_demo
