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

}  // namespace opmatrix
