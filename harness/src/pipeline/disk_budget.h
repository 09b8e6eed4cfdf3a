// --disk-budget GB (`opmatrix run`, `opmatrix atlas run`): which images the run removes once an
// image's cells are done. Only images this run built count and go, oldest first, while together they take
// more than the budget; images that were there before the run are never touched.
#pragma once

#include <string>
#include <vector>

namespace opmatrix {

struct BuiltImage {
  std::string tag;
  double bytes = 0;
};

class DiskBudget {
 public:
  explicit DiskBudget(double budget_bytes) : budget_(budget_bytes) {}
  // An image's cells are done, in an image the run built (call only for those).
  void built(BuiltImage image) { built_.push_back(std::move(image)); }
  // The images to remove now, oldest first; they are no longer counted.
  std::vector<BuiltImage> over_budget();
  // Every image kept, oldest first, to remove now (the next image needs their room); none counted after.
  std::vector<BuiltImage> all_kept();
  double kept_bytes() const;

 private:
  double budget_;
  std::vector<BuiltImage> built_;  // oldest first
};

}  // namespace opmatrix
