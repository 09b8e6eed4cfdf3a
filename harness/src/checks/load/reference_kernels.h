// What an op's kernels in its library's reference cell say about the op in every cell: that it is
// CUDA-only by design (the mirror of a CPU variant, checks/promises/promises.h), and that a
// cell whose kernels moved to other dispatch keys runs a binary built for another torch.
// Pure functions over results, used by reference_promises.cpp; the verdict groups what they
// mark (report/library_findings.h) by the kind and prefix below.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/cell_result.h"

namespace opmatrix {

// The diagnosis kind of a registration whose kernels sit under other keys than the reference's.
inline constexpr const char* kKernelsUnderOtherKeys = "kernels_under_other_keys";
// How a CUDA-only op's registration starts in a runtime without CUDA (a skip: nothing to see).
inline constexpr const char* kCudaOnlyUnobservable = "not checked here: a CUDA-only op by design";

// Whether a cell's build holds device code, by what its results record: a `fatbin` result that
// found SASS or PTX, or the build's "with CUDA (device code in N of M libraries)".
bool holds_device_code(const CellResult& r);

// Whether `kernels` (an op's, measured in `ref`) make the op CUDA-only by design: `ref` is a CUDA
// cell whose build holds device code, and the op has a CUDA kernel there and no CPU kernel.
bool cuda_only_by_design(const CellResult& ref, const std::vector<std::string>& kernels);

// The backend keys (CPU, CUDA, Meta) an op's kernels left and those they appeared under, where
// they moved: the reference has CUDA, here has CPU instead. Else nullopt.
struct KeySwap {
  std::vector<std::string> gone, appeared;
};
std::optional<KeySwap> keys_swapped(const std::vector<std::string>& reference, const std::vector<std::string>& here);

// "kernels register under CPU here where the reference cell X (…) has them under CUDA and Meta:
// … — users get "Could not run 'ns::…' …"": the same words for every op it holds for, so the
// verdict says it once per library. `reference` names the cell: "the reference cell X (torch Y, why)".
std::string swap_summary(const KeySwap& swap, const std::string& reference, const std::string& ns);

// "a and b", "a, b and c".
std::string and_list(const std::vector<std::string>& items);

}  // namespace opmatrix
