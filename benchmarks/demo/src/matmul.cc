#include "benchspace_demo/matmul.hh"

#include <algorithm>
#include <cstring>
#include <vector>

#include "benchspace_demo/tuning_params.hh"

namespace benchspace_demo {
namespace {

// Register tile: MR rows of C by NR columns stay in registers for a whole
// k-block, so `block` decides only how the operands are cut for the caches.
constexpr int64_t kMr = 4;
constexpr int64_t kNr = 8;

// Copies B[0, kc) x [0, nc) into strips of kNr columns, each kc x kNr and
// contiguous, zero-padding the last strip.
void pack_b(int64_t kc, int64_t nc, const double* b, int64_t ldb, double* packed) noexcept {
    for (int64_t j0 = 0; j0 < nc; j0 += kNr) {
        const int64_t nr = std::min(kNr, nc - j0);
        for (int64_t p = 0; p < kc; ++p) {
            const double* src = b + p * ldb + j0;
            double* dst = packed + j0 * kc + p * kNr;
            int64_t q = 0;
            for (; q < nr; ++q) dst[q] = src[q];
            for (; q < kNr; ++q) dst[q] = 0.0;
        }
    }
}

// Four doubles in one SIMD register (GCC/Clang vector extension; AVX2 with
// -march=native, split into SSE pairs otherwise).
typedef double Vec4 __attribute__((vector_size(32)));

inline Vec4 load4(const double* p) noexcept {
    Vec4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// C[0, mr) x [0, nr) += alpha * A[0, mr) x [0, kc) * strip, with mr <= kMr, nr <= kNr.
// The full tile keeps its 4 x 8 accumulators in eight registers.
void micro_kernel(int64_t mr, int64_t nr, int64_t kc, double alpha, const double* __restrict a,
                  int64_t lda, const double* __restrict strip, double* __restrict c,
                  int64_t ldc) noexcept {
    Vec4 acc[kMr][2] = {};
    if (mr == kMr) {
        for (int64_t p = 0; p < kc; ++p) {
            const Vec4 b0 = load4(strip + p * kNr);
            const Vec4 b1 = load4(strip + p * kNr + 4);
            for (int64_t r = 0; r < kMr; ++r) {
                const double ar = a[r * lda + p];
                acc[r][0] += ar * b0;
                acc[r][1] += ar * b1;
            }
        }
    } else {
        for (int64_t p = 0; p < kc; ++p) {
            const Vec4 b0 = load4(strip + p * kNr);
            const Vec4 b1 = load4(strip + p * kNr + 4);
            for (int64_t r = 0; r < mr; ++r) {
                const double ar = a[r * lda + p];
                acc[r][0] += ar * b0;
                acc[r][1] += ar * b1;
            }
        }
    }
    for (int64_t r = 0; r < mr; ++r) {
        for (int64_t q = 0; q < nr; ++q) c[r * ldc + q] += alpha * acc[r][q / 4][q % 4];
    }
}

}  // namespace

void gemm_tiled(int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
                const double* b, int64_t ldb, double* c, int64_t ldc, int64_t block) {
    const int64_t bs = std::max<int64_t>(block, 1);
    const int64_t kc_max = std::min(bs, k);
    const int64_t nc_max = std::min(bs, n);
    // A block x block panel of B is packed once and reused by every row of A:
    // a small block pays the C updates and packing often, a large one spills
    // the packed panel out of L1/L2.
    std::vector<double> packed(static_cast<size_t>(kc_max * ((nc_max + kNr - 1) / kNr) * kNr));
    for (int64_t j0 = 0; j0 < n; j0 += bs) {
        const int64_t nc = std::min(bs, n - j0);
        for (int64_t k0 = 0; k0 < k; k0 += bs) {
            const int64_t kc = std::min(bs, k - k0);
            pack_b(kc, nc, b + k0 * ldb + j0, ldb, packed.data());
            for (int64_t i = 0; i < m; i += kMr) {
                const int64_t mr = std::min(kMr, m - i);
                for (int64_t js = 0; js < nc; js += kNr) {
                    micro_kernel(mr, std::min(kNr, nc - js), kc, alpha, a + i * lda + k0, lda,
                                 packed.data() + js * kc, c + i * ldc + j0 + js, ldc);
                }
            }
        }
    }
}

void matmul(int64_t n, const double* a, const double* b, double* c, int64_t block) {
    std::fill(c, c + n * n, 0.0);
    gemm_tiled(n, n, n, 1.0, a, n, b, n, c, n, block);
}

void matmul(int64_t n, const double* a, const double* b, double* c) {
    matmul(n, a, b, c, tuning::matmul_block_for_n(n));
}

}  // namespace benchspace_demo
