// Tuning constants of the benchspace demo library.
//
// Each constant has one compiled value per size bucket of the bucket key n
// (TINY <= 64, SMALL <= 128, MEDIUM <= 256, LARGE <= 512, XLARGE above) and an
// accessor <name>_for_n(n) that reads BENCHSPACE_DEMO_TUNE_<NAME> first, so a
// value can be A/B-tested without a rebuild. An empty, unparsable or
// out-of-range override is ignored and the compiled value kept; 0 is a legal
// value where the range allows it, not "unset".
//
// The values are tuned by spaces/demo.json; `benchspace generate` writes a
// header of this shape from a profile.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace benchspace_demo::tuning {

namespace detail {

// Returns true and sets *out when NAME is set to a base-10 integer in [lo, hi];
// an empty, unparsable or out-of-range value is ignored.
inline bool env_int(const char* name, long long lo, long long hi, long long* out) noexcept {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < lo || value > hi) {
        return false;
    }
    *out = value;
    return true;
}

}  // namespace detail

// MATMUL_BLOCK: square tile of the blocked matmul, and the panel width of the
// blocked LU factorisation, which reads it through matmul_block_for_n(n).
// Range [1, 4096].
inline constexpr int32_t MATMUL_BLOCK_TINY = 64;  // hand-picked: L1 holds three 64x64 tiles
inline constexpr int32_t MATMUL_BLOCK_SMALL = 64;
inline constexpr int32_t MATMUL_BLOCK_MEDIUM = 64;
inline constexpr int32_t MATMUL_BLOCK_LARGE = 64;
/* No case reaches XLARGE: keep the LARGE value. */
inline constexpr int32_t MATMUL_BLOCK_XLARGE = 32;

inline constexpr int32_t matmul_block_default_for_n(int64_t n) noexcept {
    if (n <= 64) return MATMUL_BLOCK_TINY;
    if (n <= 128) return MATMUL_BLOCK_SMALL;
    if (n <= 256) return MATMUL_BLOCK_MEDIUM;
    if (n <= 512) return MATMUL_BLOCK_LARGE;
    return MATMUL_BLOCK_XLARGE;
}

inline int32_t matmul_block_for_n(int64_t n) noexcept {
    long long v;
    if (detail::env_int("BENCHSPACE_DEMO_TUNE_MATMUL_BLOCK", 1, 4096, &v)) return static_cast<int32_t>(v);
    return matmul_block_default_for_n(n);
}

// DOT_LANES: independent accumulators of the dot products inside matvec; the
// kernel rounds down to a power of two it instantiates (1..16). Range [1, 64].
inline constexpr int32_t DOT_LANES_TINY = 4;
inline constexpr int32_t DOT_LANES_SMALL = 4;
inline constexpr int32_t DOT_LANES_MEDIUM = 4;
inline constexpr int32_t DOT_LANES_LARGE = 4;
inline constexpr int32_t DOT_LANES_XLARGE = 4;

inline constexpr int32_t dot_lanes_default_for_n(int64_t n) noexcept {
    if (n <= 64) return DOT_LANES_TINY;
    if (n <= 128) return DOT_LANES_SMALL;
    if (n <= 256) return DOT_LANES_MEDIUM;
    if (n <= 512) return DOT_LANES_LARGE;
    return DOT_LANES_XLARGE;
}

inline int32_t dot_lanes_for_n(int64_t n) noexcept {
    long long v;
    if (detail::env_int("BENCHSPACE_DEMO_TUNE_DOT_LANES", 1, 64, &v)) return static_cast<int32_t>(v);
    return dot_lanes_default_for_n(n);
}

// SORT_INSERTION_CUTOFF: merge sort hands runs of at most this many elements to
// insertion sort; 0 and 1 mean a pure merge sort. Range [0, 4096].
inline constexpr int32_t SORT_INSERTION_CUTOFF_TINY = 16;
inline constexpr int32_t SORT_INSERTION_CUTOFF_SMALL = 16;
inline constexpr int32_t SORT_INSERTION_CUTOFF_MEDIUM = 16;
inline constexpr int32_t SORT_INSERTION_CUTOFF_LARGE = 16;
inline constexpr int32_t SORT_INSERTION_CUTOFF_XLARGE = 16;

inline constexpr int32_t sort_insertion_cutoff_default_for_n(int64_t n) noexcept {
    if (n <= 64) return SORT_INSERTION_CUTOFF_TINY;
    if (n <= 128) return SORT_INSERTION_CUTOFF_SMALL;
    if (n <= 256) return SORT_INSERTION_CUTOFF_MEDIUM;
    if (n <= 512) return SORT_INSERTION_CUTOFF_LARGE;
    return SORT_INSERTION_CUTOFF_XLARGE;
}

inline int32_t sort_insertion_cutoff_for_n(int64_t n) noexcept {
    long long v;
    if (detail::env_int("BENCHSPACE_DEMO_TUNE_SORT_INSERTION_CUTOFF", 0, 4096, &v)) return static_cast<int32_t>(v);
    return sort_insertion_cutoff_default_for_n(n);
}

// Measured by hand on the CI runner, see the note in sort.cc:
//   random keys:  branchless wins from n = 128 up
//   nearly sorted: the branchy merge wins everywhere
// SORT_BRANCHLESS_MERGE: merge with conditional moves instead of a branch per
// element. Range [0, 1].
inline constexpr bool SORT_BRANCHLESS_MERGE_TINY = true;   // 2026-01: +0.2 % (noise)
inline constexpr bool SORT_BRANCHLESS_MERGE_SMALL = false;
inline constexpr bool SORT_BRANCHLESS_MERGE_MEDIUM = false;
inline constexpr bool SORT_BRANCHLESS_MERGE_LARGE = false;
inline constexpr bool SORT_BRANCHLESS_MERGE_XLARGE = false;

inline constexpr bool sort_branchless_merge_default_for_n(int64_t n) noexcept {
    if (n <= 64) return SORT_BRANCHLESS_MERGE_TINY;
    if (n <= 128) return SORT_BRANCHLESS_MERGE_SMALL;
    if (n <= 256) return SORT_BRANCHLESS_MERGE_MEDIUM;
    if (n <= 512) return SORT_BRANCHLESS_MERGE_LARGE;
    return SORT_BRANCHLESS_MERGE_XLARGE;
}

inline bool sort_branchless_merge_for_n(int64_t n) noexcept {
    long long v;
    if (detail::env_int("BENCHSPACE_DEMO_TUNE_SORT_BRANCHLESS_MERGE", 0, 1, &v)) return v != 0;
    return sort_branchless_merge_default_for_n(n);
}

}  // namespace benchspace_demo::tuning
