// Dot products with several independent accumulators, and the matrix-vector
// product built on them.
#pragma once

#include <cstdint>

namespace benchspace_demo {

// Sum of x[i] * y[i] using `lanes` independent accumulators, rounded down to a
// power of two in [1, 16]; more lanes hide the floating-point add latency.
double dot(const double* x, const double* y, int64_t len, int64_t lanes) noexcept;

// y = A x for the n x n row-major matrix A, one dot product per row with
// tuning::dot_lanes_for_n(n) lanes (the knob is reachable only through its
// environment override, BENCHSPACE_DEMO_TUNE_DOT_LANES).
void matvec(int64_t n, const double* a, const double* x, double* y) noexcept;

}  // namespace benchspace_demo
