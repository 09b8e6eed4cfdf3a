// The closing figures of a run (images/cold_run_figures.h): builds, the part of them beside a
// compiling cell, the cells' own time, wall time and their ratio, from spans in seconds.
#include <gtest/gtest.h>

#include "images/cold_run_figures.h"

namespace opmatrix {

namespace {

TEST(ColdRunFigures, OverlapIsTheBuildTimeBesideAnyCompilingCell) {
  // Two cells at once from 50 to 300 (counted once where they overlap), a third 400-500.
  const std::vector<TimeSpan> builds = {{0, 100}, {100, 250}, {300, 400}};
  const std::vector<TimeSpan> cells = {{50, 150}, {120, 300}, {400, 500}};
  const ColdRunFigures f = cold_run_figures(builds, {}, cells, 500);
  EXPECT_EQ(f.images_built, 3);
  EXPECT_DOUBLE_EQ(f.image_seconds, 350);
  // 50-100 and 100-250 beside a cell; 300-400 falls between the cells.
  EXPECT_DOUBLE_EQ(f.overlap_seconds, 200);
  EXPECT_DOUBLE_EQ(f.cell_seconds, 100 + 180 + 100);
  EXPECT_DOUBLE_EQ(f.sum_over_wall(), (350.0 + 380.0) / 500.0);
  EXPECT_EQ(render_cold_run(f),
            "cold images: 3 built in 350 s (200 s of it beside a compiling cell); cells 380 s; wall 500 s; sum/wall 1.46");
}

TEST(ColdRunFigures, ASequentialRunHasNoOverlapAndARatioOfOne) {
  // Image, cell, image, cell: the run before the look-ahead.
  const ColdRunFigures f = cold_run_figures({{0, 200}, {500, 700}}, {}, {{200, 500}, {700, 1000}}, 1000);
  EXPECT_DOUBLE_EQ(f.overlap_seconds, 0);
  EXPECT_DOUBLE_EQ(f.sum_over_wall(), 1.0);
}

TEST(ColdRunFigures, FailedBuildsAreNamedButNotCounted) {
  const ColdRunFigures f = cold_run_figures({{0, 10}}, {{10, 40}}, {{40, 100}}, 100);
  EXPECT_EQ(f.images_built, 1);
  EXPECT_DOUBLE_EQ(f.image_seconds, 10);
  EXPECT_EQ(f.builds_failed, 1);
  EXPECT_DOUBLE_EQ(f.failed_seconds, 30);
  EXPECT_EQ(render_cold_run(f),
            "cold images: 1 built in 10 s (0 s of it beside a compiling cell); 1 failed build (30 s, not counted); "
            "cells 60 s; wall 100 s; sum/wall 0.70");
}

TEST(ColdRunFigures, EveryImagePresent) {
  const ColdRunFigures f = cold_run_figures({}, {}, {{1, 61}, {61, 121}}, 122);
  EXPECT_EQ(render_cold_run(f), "images: none built; cells 120 s; wall 122 s; sum/wall 0.98");
}

}  // namespace

}  // namespace opmatrix
