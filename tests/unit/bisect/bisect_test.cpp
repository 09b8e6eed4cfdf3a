// The search of `opmatrix bisect` with the cells replaced by a table of outcomes (the harness's
// own logic; the worked example on real cells is in docs/bisect.md), and the judging of results.
#include <gtest/gtest.h>

#include "bisect/bisect.h"
#include "testbed.h"

namespace opmatrix {

namespace {

using O = Probe::Outcome;

// Outcomes per point; counts the probes.
struct Axis {
  std::vector<O> points;
  int runs = 0;
  Probe operator()(std::size_t i) {
    ++runs;
    return {points.at(i), points.at(i) == O::bad ? "broke" : ""};
  }
};

BisectOutcome search(Axis& a) {
  return bisect(a.points.size(), [&](std::size_t i) { return a(i); });
}

}  // namespace

TEST(Bisect, FindsTheFirstBadWithFewerRunsThanPoints) {
  for (std::size_t n = 3; n <= 33; ++n)
    for (std::size_t first_bad = 1; first_bad < n; ++first_bad) {
      Axis a;
      for (std::size_t i = 0; i < n; ++i) a.points.push_back(i < first_bad ? O::good : O::bad);
      const BisectOutcome o = search(a);
      ASSERT_TRUE(o.found) << n << " " << first_bad << " " << o.error;
      EXPECT_EQ(o.first_bad, first_bad);
      EXPECT_EQ(o.last_good, first_bad - 1);
      // Both ends, then at most ceil(log2(n - 1)) middles.
      int bound = 2;
      for (std::size_t span = n - 1; span > 1; span = (span + 1) / 2) ++bound;
      EXPECT_LE(a.runs, bound) << n;
      if (n >= 5) {
        EXPECT_LT(a.runs, static_cast<int>(n));
      }
    }
}

// The worked example's axis: 1.13.1 2.1.2 2.5.1 2.6.0 2.14.1 2.15.0, first bad 2.14.1.
TEST(Bisect, SixTorchVersionsTakeFiveRuns) {
  Axis a{{O::good, O::good, O::good, O::good, O::bad, O::bad}};
  const BisectOutcome o = search(a);
  ASSERT_TRUE(o.found);
  EXPECT_EQ(o.first_bad, 4u);
  EXPECT_EQ(a.runs, 5);
  ASSERT_EQ(o.steps.size(), 5u);
  EXPECT_EQ(o.steps[0].index, 0u);
  EXPECT_EQ(o.steps[1].index, 5u);
}

TEST(Bisect, StepsAroundUntestablePoints) {
  Axis a{{O::good, O::good, O::good, O::untestable, O::good, O::bad, O::bad}};
  const BisectOutcome o = search(a);
  ASSERT_TRUE(o.found) << o.error;
  EXPECT_EQ(o.first_bad, 5u);
  EXPECT_EQ(o.last_good, 4u);
}

// An untestable point next to the break: either it or the next one is the first bad.
TEST(Bisect, AnUntestablePointAtTheBreakLeavesARange) {
  Axis a{{O::good, O::good, O::untestable, O::bad, O::bad}};
  const BisectOutcome o = search(a);
  EXPECT_FALSE(o.found);
  EXPECT_EQ(o.last_good, 1u);
  EXPECT_EQ(o.first_bad, 3u);
}

TEST(Bisect, AllUntestableBetweenNamesTheRange) {
  Axis a{{O::good, O::untestable, O::untestable, O::bad}};
  const BisectOutcome o = search(a);
  EXPECT_FALSE(o.found);
  EXPECT_TRUE(o.ends_hold);
  EXPECT_NE(o.error.find("untestable"), std::string::npos);
  EXPECT_EQ(o.last_good, 0u);
  EXPECT_EQ(o.first_bad, 3u);
}

TEST(Bisect, EndsThatDoNotBracketABreakAreAnError) {
  Axis good_end_bad{{O::bad, O::bad, O::bad}};
  const BisectOutcome starts_bad = search(good_end_bad);
  EXPECT_NE(starts_bad.error.find("first cell is not good"), std::string::npos);
  EXPECT_FALSE(starts_bad.ends_hold);
  Axis never_breaks{{O::good, O::good, O::good}};
  const BisectOutcome ends_good = search(never_breaks);
  EXPECT_NE(ends_good.error.find("last cell is not bad"), std::string::npos);
  EXPECT_FALSE(ends_good.ends_hold);
  Axis one{{O::good}};
  EXPECT_FALSE(search(one).found);
}

namespace {
CellResult with(std::vector<CheckResult> checks, Status cell = Status::pass) {
  CellResult r;
  r.status = cell;
  r.checks = std::move(checks);
  return r;
}
CheckResult check(const std::string& name, Status s, const std::string& op = "", const std::string& message = "") {
  return testbed::check_result(name, s, op, "", message);
}
}  // namespace

TEST(BisectJudge, PassIsGoodFailOrExpectedFailIsBadAbsentIsUntestable) {
  EXPECT_EQ(judge(with({check("build", Status::pass)}), {"build", "", ""}).outcome, O::good);
  const Probe bad = judge(with({check("build", Status::xfail, "", "#error C++20 or later")}), {"build", "", ""});
  EXPECT_EQ(bad.outcome, O::bad);
  EXPECT_NE(bad.why.find("#error C++20 or later"), std::string::npos);
  EXPECT_EQ(judge(with({check("build", Status::fail)}), {"load", "", ""}).outcome, O::untestable);
  EXPECT_EQ(judge(with({check("load", Status::skip)}), {"load", "", ""}).outcome, O::untestable);
  EXPECT_EQ(judge(with({check("cell", Status::skip, "", "needs a GPU")}, Status::skip), {"build", "", ""}).outcome,
            O::untestable);
}

TEST(BisectJudge, OpNarrowsToThatOpsResults) {
  const CellResult r = with({check("compile", Status::fail, "a"), check("compile", Status::pass, "b")});
  EXPECT_EQ(judge(r, {"compile", "b", ""}).outcome, O::good);
  EXPECT_EQ(judge(r, {"compile", "a", ""}).outcome, O::bad);
  EXPECT_EQ(judge(r, {"compile", "", ""}).outcome, O::bad);
}

}  // namespace opmatrix
