#include "benchspace_demo/lu.hh"

#include <algorithm>
#include <cmath>
#include <utility>

#include "benchspace_demo/matmul.hh"
#include "benchspace_demo/tuning_params.hh"

namespace benchspace_demo {
namespace {

// Unblocked LU of the panel rows [k0, n), columns [k0, k1): level-2 work whose
// cost grows with the panel width, which is why LU prefers a narrower block
// than the matmul kernel alone does. Row swaps span the whole matrix.
int64_t factor_panel(int64_t n, double* a, int64_t lda, int64_t* piv, int64_t k0,
                     int64_t k1) noexcept {
    int64_t info = 0;
    for (int64_t j = k0; j < k1; ++j) {
        int64_t p = j;
        double best = std::fabs(a[j * lda + j]);
        for (int64_t i = j + 1; i < n; ++i) {
            const double v = std::fabs(a[i * lda + j]);
            if (v > best) {
                best = v;
                p = i;
            }
        }
        piv[j] = p;
        if (best == 0.0) {
            if (info == 0) info = j + 1;
            continue;
        }
        if (p != j) {
            std::swap_ranges(a + j * lda, a + j * lda + n, a + p * lda);
        }
        const double inv = 1.0 / a[j * lda + j];
        const double* __restrict urow = a + j * lda;
        for (int64_t i = j + 1; i < n; ++i) {
            double* __restrict row = a + i * lda;
            const double l = row[j] * inv;
            row[j] = l;
            for (int64_t c = j + 1; c < k1; ++c) {
                row[c] -= l * urow[c];
            }
        }
    }
    return info;
}

// U12 = L11^-1 A12 for the block rows [k0, k1) and columns [k1, n).
void solve_block_row(int64_t n, double* a, int64_t lda, int64_t k0, int64_t k1) noexcept {
    for (int64_t j = k0; j < k1; ++j) {
        const double* __restrict urow = a + j * lda;
        for (int64_t i = j + 1; i < k1; ++i) {
            double* __restrict row = a + i * lda;
            const double l = row[j];
            for (int64_t c = k1; c < n; ++c) {
                row[c] -= l * urow[c];
            }
        }
    }
}

}  // namespace

int64_t lu_factor(int64_t n, double* a, int64_t lda, int64_t* piv, int64_t block) {
    const int64_t nb = std::max<int64_t>(block, 1);
    int64_t info = 0;
    for (int64_t k0 = 0; k0 < n; k0 += nb) {
        const int64_t k1 = std::min(k0 + nb, n);
        const int64_t panel_info = factor_panel(n, a, lda, piv, k0, k1);
        if (info == 0) info = panel_info;
        if (k1 == n) break;
        solve_block_row(n, a, lda, k0, k1);
        const int64_t rest = n - k1;
        gemm_tiled(rest, rest, k1 - k0, -1.0, a + k1 * lda + k0, lda, a + k0 * lda + k1, lda,
                   a + k1 * lda + k1, lda, nb);
    }
    return info;
}

int64_t lu_factor(int64_t n, double* a, int64_t lda, int64_t* piv) {
    return lu_factor(n, a, lda, piv, tuning::matmul_block_for_n(n));
}

void lu_solve(int64_t n, const double* a, int64_t lda, const int64_t* piv, double* b) noexcept {
    for (int64_t i = 0; i < n; ++i) {
        if (piv[i] != i) std::swap(b[i], b[piv[i]]);
    }
    for (int64_t i = 0; i < n; ++i) {
        double s = b[i];
        for (int64_t j = 0; j < i; ++j) s -= a[i * lda + j] * b[j];
        b[i] = s;
    }
    for (int64_t i = n - 1; i >= 0; --i) {
        double s = b[i];
        for (int64_t j = i + 1; j < n; ++j) s -= a[i * lda + j] * b[j];
        b[i] = s / a[i * lda + i];
    }
}

}  // namespace benchspace_demo
