// Blocked right-looking LU factorisation with partial pivoting (row-major).
#pragma once

#include <cstdint>

namespace benchspace_demo {

// Factors the n x n matrix A (row stride lda) in place into P A = L U, with
// panel width `block`; the trailing update is gemm_tiled with the same block.
// piv[i] is the row swapped with row i. Returns 0, or j + 1 when U(j, j) is 0.
int64_t lu_factor(int64_t n, double* a, int64_t lda, int64_t* piv, int64_t block);

// As above with the panel width tuning::matmul_block_for_n(n): LU is the
// larger consumer of the matmul tile constant.
int64_t lu_factor(int64_t n, double* a, int64_t lda, int64_t* piv);

// Solves A x = b in place in `b` from the factors lu_factor left in `a`.
void lu_solve(int64_t n, const double* a, int64_t lda, const int64_t* piv, double* b) noexcept;

}  // namespace benchspace_demo
