#include "pipeline/disk_budget.h"

namespace opmatrix {

double DiskBudget::kept_bytes() const {
  double kept = 0;
  for (const auto& b : built_) kept += b.bytes;
  return kept;
}

std::vector<BuiltImage> DiskBudget::over_budget() {
  std::vector<BuiltImage> remove;
  double kept = kept_bytes();
  while (!built_.empty() && kept > budget_) {
    kept -= built_.front().bytes;
    remove.push_back(built_.front());
    built_.erase(built_.begin());
  }
  return remove;
}

std::vector<BuiltImage> DiskBudget::all_kept() {
  std::vector<BuiltImage> kept;
  kept.swap(built_);
  return kept;
}

}  // namespace opmatrix
