// Top-down merge sort with an insertion-sort cutoff.
#pragma once

#include <cstdint>

namespace benchspace_demo {

// Sorts data[0, len) ascending; `scratch` holds at least len elements. Runs of
// at most `cutoff` elements go to insertion sort (0 or 1: pure merge sort);
// `branchless` merges with conditional moves instead of a branch per element.
void merge_sort(int32_t* data, int32_t* scratch, int64_t len, int64_t cutoff,
                bool branchless) noexcept;

// As above with tuning::sort_insertion_cutoff_for_n(len) and
// tuning::sort_branchless_merge_for_n(len).
void merge_sort(int32_t* data, int32_t* scratch, int64_t len) noexcept;

}  // namespace benchspace_demo
