// Cache-tiled dense matrix multiplication (row-major, double precision).
#pragma once

#include <cstdint>

namespace benchspace_demo {

// C[m x n] += alpha * A[m x k] * B[k x n] with square tiles of `block` (>= 1)
// in all three dimensions; ld* are row strides in elements.
void gemm_tiled(int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
                const double* b, int64_t ldb, double* c, int64_t ldc, int64_t block);

// C = A * B for n x n matrices with an explicit tile size.
void matmul(int64_t n, const double* a, const double* b, double* c, int64_t block);

// C = A * B for n x n matrices with the tile size tuning::matmul_block_for_n(n).
void matmul(int64_t n, const double* a, const double* b, double* c);

}  // namespace benchspace_demo
