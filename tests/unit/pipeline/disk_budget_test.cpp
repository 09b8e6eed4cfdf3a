#include <gtest/gtest.h>

#include "pipeline/disk_budget.h"

namespace opmatrix {

namespace {

std::vector<std::string> tags(const std::vector<BuiltImage>& images) {
  std::vector<std::string> out;
  for (const auto& i : images) out.push_back(i.tag);
  return out;
}

}  // namespace

// Runtime by runtime: while the images the run built fit the budget they stay (the next runtime
// may share their CUDA layers); once over, the oldest go until the rest fits.
TEST(DiskBudget, TheOldestImagesTheRunBuiltGoUntilTheRestFits) {
  DiskBudget budget(16e9);
  budget.built({"cu128-a", 8.4e9});
  EXPECT_TRUE(budget.over_budget().empty());
  budget.built({"cu128-b", 3.4e9});
  EXPECT_TRUE(budget.over_budget().empty());
  budget.built({"cu126", 8.4e9});  // 20.2 GB: over
  EXPECT_EQ(tags(budget.over_budget()), (std::vector<std::string>{"cu128-a"}));
  EXPECT_DOUBLE_EQ(budget.kept_bytes(), 11.8e9);
  EXPECT_TRUE(budget.over_budget().empty()) << "removed images are no longer counted";
}

TEST(DiskBudget, ABudgetBelowOneImageRemovesEachOnceItsPairsAreDone) {
  DiskBudget budget(0.001e9);
  budget.built({"a", 6e9});
  EXPECT_EQ(tags(budget.over_budget()), (std::vector<std::string>{"a"}));
  budget.built({"b", 6e9});
  EXPECT_EQ(tags(budget.over_budget()), (std::vector<std::string>{"b"}));
  EXPECT_DOUBLE_EQ(budget.kept_bytes(), 0);
}

// Where the next image finds no room on the disk, every image kept under the budget goes (their
// cells are done) before the run gives up; none is counted after.
TEST(DiskBudget, TheKeptImagesAreTheNextImagesRoom) {
  DiskBudget budget(10e9);
  budget.built({"pypi-2.5.1", 6.4e9});
  EXPECT_TRUE(budget.over_budget().empty());
  budget.built({"pypi-2.6.0", 2.0e9});
  EXPECT_EQ(tags(budget.all_kept()), (std::vector<std::string>{"pypi-2.5.1", "pypi-2.6.0"}));
  EXPECT_DOUBLE_EQ(budget.kept_bytes(), 0);
  EXPECT_TRUE(budget.all_kept().empty());
}

}  // namespace opmatrix
