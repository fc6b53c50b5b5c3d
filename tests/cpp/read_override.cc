// Prints what the generated accessors return, one "name(size)=value" line each, so a test
// can run it with and without the override variables set and compare with the header.
//
// Built by tests/generators/test_header_override_program.py against the golden headers
// (tests/golden/demo_like.hh, tests/golden/kinds.hh and tests/golden/batchlas.hh).
#include <cstdint>
#include <cstdio>

#include "batchlas.hh"
#include "demo_like.hh"
#include "kinds.hh"

namespace demo = benchspace_demo::tuning;
namespace kt = kinds::tuning;
namespace bt = batchlas::tuning;

int main() {
    const int64_t sizes[] = {-1, 0, 64, 65, 128, 256, 512, 513, 100000};
    for (const int64_t n : sizes) {
        const long long size = static_cast<long long>(n);
        std::printf("matmul_block_for_n(%lld)=%d\n", size, static_cast<int>(demo::matmul_block_for_n(n)));
        std::printf("dot_lanes_for_n(%lld)=%d\n", size, static_cast<int>(demo::dot_lanes_for_n(n)));
        std::printf("sort_branchless_merge_for_n(%lld)=%d\n", size,
                    demo::sort_branchless_merge_for_n(n) ? 1 : 0);
        std::printf("ormqr_block_size_for_n(%lld)=%d\n", size,
                    static_cast<int>(bt::ormqr_block_size_for_n(n)));
        std::printf("sb2st_back_tile_for_n(%lld)=%d\n", size,
                    static_cast<int>(bt::sb2st_back_tile_for_n(n)));
    }
    const int64_t ms[] = {1000, 1001};
    for (const int64_t m : ms) {
        const long long size = static_cast<long long>(m);
        std::printf("kernel_variant_for_m(%lld)=%d\n", size,
                    static_cast<int>(kt::kernel_variant_for_m(m)));
        std::printf("unroll_for_m(%lld)=%u\n", size, static_cast<unsigned>(kt::unroll_for_m(m)));
        std::printf("offset_for_m(%lld)=%d\n", size, static_cast<int>(kt::offset_for_m(m)));
        std::printf("scale_for_m(%lld)=%.17g\n", size, kt::scale_for_m(m));
        std::printf("chunk_for_m(%lld)=%llu\n", size,
                    static_cast<unsigned long long>(kt::chunk_for_m(m)));
        std::printf("big_for_m(%lld)=%llu\n", size, static_cast<unsigned long long>(kt::big_for_m(m)));
    }
    // The compile-time tables are usable in constant expressions.
    static_assert(demo::matmul_block_default_for_n(64) == demo::MATMUL_BLOCK_TINY, "TINY");
    static_assert(kt::kernel_variant_default_for_m(5000) == kt::KERNEL_VARIANT_LARGE, "LARGE");
    return 0;
}
