#include <gtest/gtest.h>

#include "matrix/expand.h"

namespace opmatrix {

namespace {

std::vector<std::string> render(const std::vector<Combination>& combos) {
  std::vector<std::string> out;
  for (const auto& c : combos) {
    std::string s;
    for (const auto& [k, v] : c) s += (s.empty() ? "" : " ") + k + "=" + v;
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST(Expand, ProductInAxisOrder) {
  Diagnostics d("m.yaml");
  MatrixAxes spec{{1, 1}, {{"os", {}, {"a", "b"}}, {"v", {}, {"1", "2"}}}, {}, {}};
  EXPECT_EQ(render(expand_axes(spec, d)),
            (std::vector<std::string>{"os=a v=1", "os=a v=2", "os=b v=1", "os=b v=2"}));
  EXPECT_FALSE(d.has_errors());
}

TEST(Expand, ExcludeRemovesPartialMatches) {
  Diagnostics d("m.yaml");
  MatrixAxes spec{{1, 1}, {{"os", {}, {"a", "b"}}, {"v", {}, {"1", "2"}}}, {}, {{{3, 5}, {{"os", "a"}}}}};
  EXPECT_EQ(render(expand_axes(spec, d)), (std::vector<std::string>{"os=b v=1", "os=b v=2"}));
}

// The example from GitHub's documentation of strategy.matrix.include.
TEST(Expand, IncludeFollowsGithubActionsSemantics) {
  Diagnostics d("m.yaml");
  MatrixAxes spec{{1, 1},
                  {{"fruit", {}, {"apple", "pear"}}, {"animal", {}, {"cat", "dog"}}},
                  {{{1, 1}, {{"color", "green"}}},
                   {{2, 1}, {{"color", "pink"}, {"animal", "cat"}}},
                   {{3, 1}, {{"fruit", "apple"}, {"shape", "circle"}}},
                   {{4, 1}, {{"fruit", "banana"}, {"animal", "cat"}}},
                   {{5, 1}, {{"fruit", "banana"}, {"animal", "cat"}, {"color", "yellow"}}}},
                  {}};
  // The banana entries fit no original combination, so each becomes a combination of its
  // own (include never extends a combination another include added).
  EXPECT_EQ(render(expand_axes(spec, d)),
            (std::vector<std::string>{"fruit=apple animal=cat color=pink shape=circle",
                                      "fruit=apple animal=dog color=green shape=circle",
                                      "fruit=pear animal=cat color=pink",
                                      "fruit=pear animal=dog color=green",
                                      "fruit=banana animal=cat",
                                      "fruit=banana animal=cat color=yellow"}));
  EXPECT_FALSE(d.has_errors());
}

TEST(Expand, IncludeOnlyListsCombinations) {
  Diagnostics d("m.yaml");
  MatrixAxes spec{{1, 1}, {}, {{{1, 1}, {{"torch", "2.0.1"}, {"cuda", "11.7"}}}, {{2, 1}, {{"torch", "2.1.2"}}}}, {}};
  EXPECT_EQ(render(expand_axes(spec, d)), (std::vector<std::string>{"torch=2.0.1 cuda=11.7", "torch=2.1.2"}));
}

TEST(Expand, ExcludeMatchingNothingIsAnErrorAtItsLine) {
  Diagnostics d("m.yaml");
  MatrixAxes spec{{1, 1}, {{"os", {}, {"a"}}}, {}, {{{7, 9}, {{"os", "z"}}}}};
  expand_axes(spec, d);
  ASSERT_TRUE(d.has_errors());
  EXPECT_EQ(format_diagnostic(d.sorted().at(0)), "m.yaml:7:9: error: exclude entry {os=z} matches no combination");
}

TEST(Expand, PartialIncludeMatchingNothingIsAnError) {
  Diagnostics d("m.yaml");
  MatrixAxes spec{{1, 1}, {{"os", {}, {"a"}}, {"v", {}, {"1"}}}, {{{4, 3}, {{"os", "zz"}}}}, {}};
  expand_axes(spec, d);
  ASSERT_TRUE(d.has_errors());
  EXPECT_EQ(format_diagnostic(d.sorted().at(0)),
            "m.yaml:4:3: error: include entry {os=zz} matches no combination, and as a new one it leaves v unset");
}

}  // namespace opmatrix
