// run_cell_job's cache key. An image on a base image this run makes (mmdebstrap's, locally) has
// no tag until that base exists, so the key taken before the cell's image step names no image;
// the result must still be written under a key the next run finds, or a rerun right after a
// cold run builds the cell again.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "pipeline/cell_cache.h"
#include "pipeline/cell_job.h"
#include "run/fake_engine.h"
#include "testbed.h"

namespace fs = std::filesystem;

namespace opmatrix {
namespace {

// Its image's tag is known only once ensure_image has run (the base made by then).
class BaseMadeByTheRun : public fake::FakeEngine {
 public:
  using FakeEngine::FakeEngine;
  std::string planned_image(const Cell& cell) override {
    return ensure_image_calls > 0 ? FakeEngine::planned_image(cell) : "";
  }
};

class CellJob : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("opmatrix-cell-job-" + std::to_string(::getpid()));
    fs::create_directories(root / "results");
    Matrix m;
    m.file = "/repo/matrix.yaml";
    m.ops = {"nms"};
    Cell c = testbed::cell("bookworm-torch1.13-cpu", "1.13.1", "0.14.1", "none");
    c.image.containerfile = "containers/debian.Containerfile";
    c.image.args = {{"SUITE", "bookworm"}};
    m.cells = {c};
    run.matrix = m;
    auto inner = std::make_unique<BaseMadeByTheRun>((root / "work").string());
    fake = inner.get();
    run.engine = std::make_unique<SharedBuildEngine>(std::move(inner));
    run.results_dir = (root / "results").string();
    run.progress = [this](const std::string& cell, const std::string& line) { said += cell + ": " + line + "\n"; };
    run.jobs = {RunJob{&run.matrix->cells.front(), ""}};
    run.outcomes.resize(1);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root, ec);
  }

  RunOptions opts;
  std::ostringstream out, err;
  RunState run{opts, out, err};
  BaseMadeByTheRun* fake = nullptr;
  std::string said;
  fs::path root;
};

TEST_F(CellJob, ACellWhoseBaseTheRunMadeIsWrittenUnderTheKeyTheNextRunFinds) {
  ASSERT_TRUE(cache_key_of(run, run.jobs.front()).key.empty()) << "before its image step the tag is unknown";
  run_cell_job(run, 0, "test");
  ASSERT_TRUE(run.outcomes.front().written) << said;
  EXPECT_EQ(fake->ensure_image_calls, 1);
  const CellResult& written = run.outcomes.front().result;
  EXPECT_FALSE(written.cache_key.empty()) << "the key is taken once the image's tag is known";
  EXPECT_EQ(written.cache_key_parts.value("image", ""), fake->image.tag);

  EXPECT_EQ(written.cache_key, cache_key_of(run, run.jobs.front()).key)
      << "the key the next run looks its result up by (a status of its own aside: the fake's probe prints nothing)";
}

}  // namespace
}  // namespace opmatrix
