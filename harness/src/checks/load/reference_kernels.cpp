#include "checks/load/reference_kernels.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace opmatrix {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// The keys an op's kernels are compiled for: a kernel moving between them is a binary registering
// under another torch's key numbers (Autograd and the composites are not where code runs).
const char* const kBackendKeys[] = {"CPU", "CUDA", "Meta"};

// What a result says about device code in the cell's build: fatbin.py's per-arch findings (a
// fail still lists the SASS/PTX the library has for other archs) and the build's own count.
struct DeviceCodeEvidence {
  const char* check;
  bool (*says_so)(const CheckResult&);
};

const DeviceCodeEvidence kDeviceCodeEvidence[] = {
    {"fatbin", [](const CheckResult& c) {
       return c.status == Status::pass ||
              (c.status != Status::skip && c.message.find("(SASS: none; PTX: none)") == std::string::npos);
     }},
    {"build", [](const CheckResult& c) { return c.message.find("with CUDA (device code in") != std::string::npos; }},
};

}  // namespace

bool holds_device_code(const CellResult& r) {
  for (const auto& c : r.checks)
    for (const auto& e : kDeviceCodeEvidence)
      if (c.check == e.check && c.op.empty() && e.says_so(c)) return true;
  return false;
}

bool cuda_only_by_design(const CellResult& ref, const std::vector<std::string>& kernels) {
  return ref.cell.value("cuda", "none") != "none" && contains(kernels, "CUDA") && !contains(kernels, "CPU") &&
         holds_device_code(ref);
}

std::optional<KeySwap> keys_swapped(const std::vector<std::string>& reference, const std::vector<std::string>& here) {
  KeySwap s;
  for (const char* key : kBackendKeys) {
    if (contains(reference, key) && !contains(here, key)) s.gone.push_back(key);
    if (contains(here, key) && !contains(reference, key)) s.appeared.push_back(key);
  }
  if (!contains(s.gone, "CUDA") || !contains(s.appeared, "CPU")) return std::nullopt;
  return s;
}

std::string and_list(const std::vector<std::string>& items) {
  if (items.size() < 2) return items.empty() ? "" : items.front();
  return fmt::format("{} and {}", fmt::join(items.begin(), items.end() - 1, ", "), items.back());
}

std::string swap_summary(const KeySwap& swap, const std::string& reference, const std::string& ns) {
  return fmt::format("kernels register under {} here where {} has them under {}: registered under other dispatch "
                     "keys than they were written for (a binary built for another torch) — users get \"Could not "
                     "run '{}::…' with arguments from the 'CUDA' backend\"",
                     and_list(swap.appeared), reference, and_list(swap.gone), ns);
}

}  // namespace opmatrix
