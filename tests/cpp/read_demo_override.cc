// Prints the checked-in demo header's accessors at a few sizes (tests/generators/
// test_header_override_demo.py sets its BENCHSPACE_DEMO_TUNE_* variables around it).
#include <cstdint>
#include <cstdio>

#include "benchspace_demo/tuning_params.hh"

int main() {
    namespace t = benchspace_demo::tuning;
    const int64_t sizes[] = {16, 64, 128, 256, 512, 1024};
    for (int64_t n : sizes) {
        std::printf("matmul_block_for_n(%lld)=%d\n", static_cast<long long>(n), t::matmul_block_for_n(n));
        std::printf("dot_lanes_for_n(%lld)=%d\n", static_cast<long long>(n), t::dot_lanes_for_n(n));
        std::printf("sort_insertion_cutoff_for_n(%lld)=%d\n", static_cast<long long>(n),
                    t::sort_insertion_cutoff_for_n(n));
        std::printf("sort_branchless_merge_for_n(%lld)=%d\n", static_cast<long long>(n),
                    t::sort_branchless_merge_for_n(n) ? 1 : 0);
    }
    return 0;
}
