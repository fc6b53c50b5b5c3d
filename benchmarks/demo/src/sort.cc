#include "benchspace_demo/sort.hh"

#include <cstring>

#include "benchspace_demo/tuning_params.hh"

namespace benchspace_demo {
namespace {

void insertion_sort(int32_t* data, int64_t len) noexcept {
    for (int64_t i = 1; i < len; ++i) {
        const int32_t v = data[i];
        int64_t j = i;
        for (; j > 0 && data[j - 1] > v; --j) data[j] = data[j - 1];
        data[j] = v;
    }
}

// A data-dependent branch per element: cheap when the input is nearly sorted
// (the predictor is right), expensive on random input.
void merge_branchy(const int32_t* a, int64_t na, const int32_t* b, int64_t nb,
                   int32_t* out) noexcept {
    int64_t i = 0;
    int64_t j = 0;
    int64_t k = 0;
    while (i < na && j < nb) {
        if (b[j] < a[i]) {
            out[k++] = b[j++];
        } else {
            out[k++] = a[i++];
        }
    }
    std::memcpy(out + k, a + i, static_cast<size_t>(na - i) * sizeof(int32_t));
    k += na - i;
    std::memcpy(out + k, b + j, static_cast<size_t>(nb - j) * sizeof(int32_t));
}

// Index arithmetic instead of a branch, so it compiles to conditional moves:
// constant cost per element whatever the input order.
void merge_branchless(const int32_t* a, int64_t na, const int32_t* b, int64_t nb,
                      int32_t* out) noexcept {
    int64_t i = 0;
    int64_t j = 0;
    int64_t k = 0;
    while (i < na && j < nb) {
        const int32_t x = a[i];
        const int32_t y = b[j];
        const int64_t take_b = static_cast<int64_t>(y < x);
        out[k++] = take_b != 0 ? y : x;
        j += take_b;
        i += 1 - take_b;
    }
    std::memcpy(out + k, a + i, static_cast<size_t>(na - i) * sizeof(int32_t));
    k += na - i;
    std::memcpy(out + k, b + j, static_cast<size_t>(nb - j) * sizeof(int32_t));
}

void sort_range(int32_t* data, int32_t* scratch, int64_t len, int64_t cutoff,
                bool branchless) noexcept {
    if (len <= 1) return;
    if (len <= cutoff) {
        insertion_sort(data, len);
        return;
    }
    const int64_t half = len / 2;
    sort_range(data, scratch, half, cutoff, branchless);
    sort_range(data + half, scratch + half, len - half, cutoff, branchless);
    if (data[half - 1] <= data[half]) return;
    if (branchless) {
        merge_branchless(data, half, data + half, len - half, scratch);
    } else {
        merge_branchy(data, half, data + half, len - half, scratch);
    }
    std::memcpy(data, scratch, static_cast<size_t>(len) * sizeof(int32_t));
}

}  // namespace

void merge_sort(int32_t* data, int32_t* scratch, int64_t len, int64_t cutoff,
                bool branchless) noexcept {
    sort_range(data, scratch, len, cutoff, branchless);
}

void merge_sort(int32_t* data, int32_t* scratch, int64_t len) noexcept {
    sort_range(data, scratch, len, tuning::sort_insertion_cutoff_for_n(len),
               tuning::sort_branchless_merge_for_n(len));
}

}  // namespace benchspace_demo
