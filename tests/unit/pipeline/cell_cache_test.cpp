// Whether a cell's last result stands: its cache key against the one its results file recorded,
// and --keep-measured, which keeps any result that measured the cell whatever its key (an atlas
// measured over many runs and opmatrix versions runs only the pairs it lacks).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipeline/cell_cache.h"
#include "testbed.h"

namespace opmatrix {
namespace {

namespace fs = std::filesystem;

class StandingResult : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("opmatrix-cell-cache-" + std::to_string(::getpid()));
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  // A results file of `cell` made with key "old-key" by opmatrix 0.9.0, with `status`.
  void write_result(const Cell& cell, Status status) {
    CellResult r;
    r.harness_version = "0.9.0";
    r.cell = nlohmann::json{{"id", cell.id}};
    r.checks = {testbed::check_result("load", status)};
    r.status = status;
    r.cache_key = "old-key";
    r.cache_key_parts = {{"opmatrix version", "0.9.0"}};
    std::ofstream(dir / (cell.id + ".json")) << to_json(r).dump();
  }

  Standing standing(const RunOptions& opts, const Cell& cell) {
    std::ostringstream out, err;
    RunState run(opts, out, err);
    run.results_dir = dir.string();
    CacheKey now;
    now.key = "new-key";
    now.parts = {{"opmatrix version", "0.10.0"}};
    return standing_result(run, cell, now);
  }

  fs::path dir;
};

TEST_F(StandingResult, AChangedKeyRunsAgainAndSaysWhatChanged) {
  const Cell pair = testbed::cell("libx-1.0--trixie-torch2.6-cpu", "2.6", "", "none");
  write_result(pair, Status::fail);
  const Standing s = standing(RunOptions{}, pair);
  EXPECT_FALSE(s.result);
  EXPECT_EQ(s.why_it_runs, "changed since its last result: opmatrix version (0.9.0 -> 0.10.0)");
}

TEST_F(StandingResult, KeepMeasuredKeepsAResultThatMeasuredTheCellWhateverItsKey) {
  const Cell pair = testbed::cell("libx-1.0--trixie-torch2.6-cpu", "2.6", "", "none");
  write_result(pair, Status::fail);
  RunOptions opts;
  opts.keep_measured = true;
  const Standing s = standing(opts, pair);
  ASSERT_TRUE(s.result);
  EXPECT_TRUE(s.result->cached);
  EXPECT_EQ(s.result->harness_version, "0.9.0") << "a kept result still names the opmatrix that made it";
  EXPECT_EQ(s.result->status, Status::fail);
}

TEST_F(StandingResult, KeepMeasuredStillRunsWhatHasNoResultOrOnlyTheInfrastructures) {
  RunOptions opts;
  opts.keep_measured = true;
  const Cell fresh = testbed::cell("libx-2.0--trixie-torch2.6-cpu", "2.6", "", "none");
  EXPECT_EQ(standing(opts, fresh).why_it_runs, "no result yet");
  const Cell broken = testbed::cell("libx-1.0--sid-torch2.14-cpu", "2.14", "", "none");
  write_result(broken, Status::error);
  const Standing s = standing(opts, broken);
  EXPECT_FALSE(s.result);
  EXPECT_EQ(s.why_it_runs, "its last result was error (the infrastructure's, never kept)");
}

}  // namespace
}  // namespace opmatrix
