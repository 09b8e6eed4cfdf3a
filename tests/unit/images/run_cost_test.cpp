// What `opmatrix run` says it will store and how long it takes, and whether it stops first:
// the arithmetic and the decision (images/run_cost.h) with sizes and free space as inputs, and the
// survey (images/run_cost_survey.h) over a fake engine's storage.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>

#include "images/run_cost.h"
#include "images/run_cost_survey.h"
#include "../run/fake_engine.h"

namespace fs = std::filesystem;

namespace opmatrix {
namespace {

constexpr double GB = 1e9;

TEST(JudgeSpace, NeedsOnOneFilesystemAddUp) {
  // Each fits alone (10 + 5 < 14), not together: podman's storage and the work dir on one disk.
  const SpaceVerdict v = judge_space({{"podman storage", "/var/lib/containers/storage", 7, 14 * GB, 10 * GB},
                                      {"the work dir", "/work/build/opmatrix", 7, 14 * GB, 5 * GB}});
  EXPECT_FALSE(v.fits);
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_NE(v.problems[0].find("share one filesystem: together 15.0 GB, it has 14.0 GB free"), std::string::npos)
      << v.problems[0];
  EXPECT_NE(v.problems[0].find("/var/lib/containers/storage"), std::string::npos);
}

TEST(JudgeSpace, NeedsOnTwoFilesystemsAreJudgedApart) {
  EXPECT_TRUE(judge_space({{"podman storage", "/a", 1, 14 * GB, 10 * GB}, {"the work dir", "/b", 2, 6 * GB, 5 * GB}}).fits);
  const SpaceVerdict v = judge_space({{"podman storage", "/a", 1, 9 * GB, 10 * GB}, {"the work dir", "/b", 2, 6 * GB, 5 * GB}});
  EXPECT_FALSE(v.fits);
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_NE(v.problems[0].find("podman storage (/a, 10.0 GB) needs 10.0 GB, its filesystem has 9.0 GB free"),
            std::string::npos) << v.problems[0];
}

TEST(JudgeSpace, ExactlyEnoughFitsAndUnknownFreeSpaceNeverStops) {
  EXPECT_TRUE(judge_space({{"podman storage", "/a", 1, 10 * GB, 10 * GB}}).fits);
  EXPECT_TRUE(judge_space({{"podman storage", "", 0, std::nullopt, 500 * GB}}).fits);
  EXPECT_TRUE(judge_space({}).fits);
}

TEST(ImageStorageNeed, TheImagesPlusRoomToCommitTheLargest) {
  PlannedImage pypi{"pypi", {}, 8 * GB, "", 0, 0};
  PlannedImage debian{"debian", {}, 2 * GB, "", 0, 0};
  PlannedImage ref{"ref", {}, std::nullopt, "", 0, 0};
  EXPECT_DOUBLE_EQ(image_storage_need({pypi, debian, ref}), 10 * GB + 2 * 8 * GB);
  EXPECT_DOUBLE_EQ(image_storage_need({}), 0);
  // Images in layers: room for committing the largest layer, not the whole image.
  pypi.largest_layer_bytes = 2.7 * GB;
  debian.largest_layer_bytes = 0.6 * GB;
  EXPECT_DOUBLE_EQ(image_storage_need({pypi, debian}), 10 * GB + 2 * 2.7 * GB);
}

TEST(Human, BytesAndDurations) {
  EXPECT_EQ(human_bytes(8.37e9), "8.4 GB");
  EXPECT_EQ(human_bytes(630e6), "630 MB");
  EXPECT_EQ(human_duration(40), "about 40 s");
  EXPECT_EQ(human_duration(401), "about 7 min");
  EXPECT_EQ(human_duration(3900), "about 1 h 5 min");
}

TEST(MeasuredFigures, EveryRecipeHasOneAndAnUnknownOneGetsTheLargest) {
  EXPECT_LT(measured_image_figures("debian").bytes, measured_image_figures("pypi").bytes);
  EXPECT_GT(measured_image_figures("debian-cuda").bytes, measured_image_figures("debian-cuda-toolkit").bytes);
  EXPECT_DOUBLE_EQ(measured_image_figures("my-own").bytes, measured_image_figures("pypi").bytes);
  EXPECT_TRUE(measured_image_figures("pypi").measured);
  EXPECT_FALSE(measured_image_figures("my-own").measured);
}

// The fake's storage: which tags exist and how big they are.
class StorageEngine : public fake::FakeEngine {
 public:
  using FakeEngine::FakeEngine;
  std::map<std::string, double> images;  // tag -> bytes
  std::map<std::string, std::string> tags;  // cell id -> planned tag
  std::string image_id(const std::string& tag) override { return images.count(tag) ? "id-" + tag : ""; }
  std::optional<double> image_size(const std::string& tag) override {
    if (!images.count(tag)) return std::nullopt;
    return images[tag];
  }
  std::string planned_image(const Cell& cell) override { return tags[cell.id]; }
  std::string storage_root() override { return config_.work_dir; }
};

Cell pypi_cell(const std::string& id) {
  Cell c;
  c.id = id;
  c.image.builtin = "pypi";
  c.image.containerfile = "containers/pypi.Containerfile";
  return c;
}

// The look-ahead: one builder makes the new images in the order cells first ask for them, beside
// the cells; a cell waits only for an image not built yet when the cell before it ends.
TEST(LookAhead, ImagesBuiltBesideCompilingCellsCostOnlyTheirWait) {
  // The main job's shape: the first cell's image is there; the next images build while it runs.
  EXPECT_DOUBLE_EQ(look_ahead_wall_seconds({480, 120, 240}, {{650, {}}, {700, {0}}, {700, {1}}, {500, {2}}}),
                   650 + 700 + 700 + 500);
  // The first cell's own image is waited for in full; a long build outlasts a short cell.
  EXPECT_DOUBLE_EQ(look_ahead_wall_seconds({400, 900}, {{100, {0}}, {50, {1}}, {10, {}}}), 400 + 900 + 50 + 10);
  // Two cells of one image wait once; images nobody waits on (--images-only) still take their time.
  EXPECT_DOUBLE_EQ(look_ahead_wall_seconds({300}, {{100, {0}}, {100, {0}}}), 500);
  EXPECT_DOUBLE_EQ(look_ahead_wall_seconds({300, 200}, {{0, {}}, {0, {}}}), 500);
  EXPECT_DOUBLE_EQ(look_ahead_wall_seconds({}, {}), 0);
}

TEST(SurveyRunCost, NewImagesOncePerTagSizedByTheCellsLastImage) {
  const fs::path work = fs::path(::testing::TempDir()) / "run_cost_survey";
  fs::remove_all(work);
  fs::create_directories(work / "results");
  StorageEngine engine(work.string());
  Cell a = pypi_cell("a"), b = pypi_cell("b"), c = pypi_cell("c");
  engine.tags = {{"a", "localhost/opmatrix/pypi:new"}, {"b", "localhost/opmatrix/pypi:new"},
                 {"c", "localhost/opmatrix/pypi:there"}};
  engine.images = {{"localhost/opmatrix/pypi:there", 6e9}, {"localhost/opmatrix/pypi:old", 5.5e9}};
  // a ran last time in an image the storage still has: its size is the next one's best guess.
  std::ofstream(work / "results" / "a.json") << R"({"image": "localhost/opmatrix/pypi:old", "seconds": 500,
                                                    "steps": [{"name": "image", "seconds": 100}]})";
  fs::create_directories(engine.host_build_dir(c));  // c's build folder exists already
  // c's last run was ended by the infrastructure at once: its time says nothing of c's work.
  std::ofstream(work / "results" / "c.json") << R"({"status": "error", "seconds": 0.002, "steps": []})";
  const RunCost cost = survey_run_cost(engine, {&a, &b, &c}, (work / "results").string(), 1, false);
  ASSERT_EQ(cost.new_images.size(), 1u);
  EXPECT_EQ(cost.new_images[0].name, "localhost/opmatrix/pypi:new");
  EXPECT_EQ(cost.new_images[0].cells, (std::vector<std::string>{"a", "b"}));
  EXPECT_DOUBLE_EQ(cost.new_images[0].bytes.value(), 5.5e9);
  EXPECT_EQ(cost.present_images, (std::vector<std::string>{"localhost/opmatrix/pypi:there"}));
  EXPECT_EQ(cost.new_build_trees, 2);
  EXPECT_DOUBLE_EQ(cost.build_tree_bytes, 2 * measured_build_tree_bytes(CellWork::own_kernels));
  // a's last run past its image step, then the measured figure for b and c.
  EXPECT_DOUBLE_EQ(cost.cell_seconds, 400 + measured_cell_seconds(b) + measured_cell_seconds(c));
  // The storage and the work dir are one filesystem here: one device, needs added up.
  ASSERT_EQ(cost.needs.size(), 2u);
  EXPECT_EQ(cost.needs[0].device, cost.needs[1].device);
  EXPECT_DOUBLE_EQ(cost.needs[0].bytes, 5.5e9 + 2 * measured_image_figures("pypi").largest_layer_bytes);
  const std::string text = render_run_cost(cost);
  EXPECT_NE(text.find("images to build: 1 (1 present)"), std::string::npos) << text;
  EXPECT_NE(text.find("as its last image localhost/opmatrix/pypi:old"), std::string::npos) << text;
  // The one new image is a's and b's: c, whose image is there, runs first while it builds
  // (images/look_ahead_order.h); in the given order a would wait for it, then b and c follow.
  EXPECT_EQ(cost.cell_order, (std::vector<std::size_t>{2, 0, 1}));
  const double c_seconds = measured_cell_seconds(c);
  EXPECT_DOUBLE_EQ(cost.wall_seconds, std::max(cost.new_images[0].build_seconds, c_seconds) + 400 + measured_cell_seconds(b));
  EXPECT_DOUBLE_EQ(cost.given_order_seconds, cost.new_images[0].build_seconds + cost.cell_seconds);
  EXPECT_NE(text.find("order: the cells whose images are here or quickest to build first"), std::string::npos) << text;
  EXPECT_NE(text.find("the images built beside the cells"), std::string::npos) << text;
  // --images-only: no build folders, no cell time.
  const RunCost images_only = survey_run_cost(engine, {&a, &b, &c}, (work / "results").string(), 1, true);
  EXPECT_EQ(images_only.new_build_trees, 0);
  EXPECT_DOUBLE_EQ(images_only.cell_seconds, 0);
  EXPECT_DOUBLE_EQ(images_only.wall_seconds, images_only.image_seconds);
  EXPECT_EQ(images_only.cell_order, (std::vector<std::size_t>{0, 1, 2}));
  fs::remove_all(work);
}

// `n` atlas pairs of the PyPI recipe ("p0" ...), each planned as image tag(i) in `engine`.
struct AtlasPairs {
  AtlasPairs(StorageEngine& engine, int n, const std::function<std::string(int)>& tag) {
    for (int i = 0; i < n; ++i) {
      cells.push_back(pypi_cell("p" + std::to_string(i)));
      cells.back().atlas_pair = true;
      engine.tags[cells.back().id] = tag(i);
    }
    for (const auto& c : cells) pointers.push_back(&c);
  }
  std::vector<Cell> cells;
  std::vector<const Cell*> pointers;
};

TEST(SurveyRunCost, AtlasPairsKeepNoFolderAndNeedRoomForThoseRunningAtOnce) {
  const fs::path work = fs::path(::testing::TempDir()) / "run_cost_atlas";
  fs::remove_all(work);
  fs::create_directories(work / "results");
  StorageEngine engine(work.string());
  const AtlasPairs pairs(engine, 5, [](int) { return std::string("localhost/opmatrix/pypi:there"); });
  engine.images = {{"localhost/opmatrix/pypi:there", 6e9}};
  const RunCost cost = survey_run_cost(engine, pairs.pointers, (work / "results").string(), 2, false);
  EXPECT_EQ(cost.new_build_trees, 0);
  EXPECT_EQ(cost.atlas_pairs, 5);
  ASSERT_EQ(cost.needs.size(), 1u);  // the work dir only: the image is there
  EXPECT_DOUBLE_EQ(cost.needs[0].bytes, 2 * measured_pair_folder_peak_bytes());
  EXPECT_NE(render_run_cost(cost).find("atlas pairs: 5, each one's folder removed once its result is written"),
            std::string::npos) << render_run_cost(cost);
  fs::remove_all(work);
}

// The atlas's --disk-budget: the survey counts at most the budget, the largest image being built
// beside it and the room to commit it, not every runtime's image at once.
TEST(SurveyRunCost, ADiskBudgetBoundsTheImagesCountedAtOnce) {
  const fs::path work = fs::path(::testing::TempDir()) / "run_cost_budget";
  fs::remove_all(work);
  fs::create_directories(work / "results");
  StorageEngine engine(work.string());
  const AtlasPairs pairs(engine, 6, [](int i) { return "localhost/opmatrix/pypi:new" + std::to_string(i); });
  const std::vector<const Cell*>& pointers = pairs.pointers;
  const RunCost all = survey_run_cost(engine, pointers, (work / "results").string(), 1, false);
  const RunCost budgeted = survey_run_cost(engine, pointers, (work / "results").string(), 1, false, 12e9);
  ASSERT_FALSE(all.needs.empty());
  ASSERT_FALSE(budgeted.needs.empty());
  double sum = 0, largest = 0;
  for (const auto& i : all.new_images) {
    sum += i.bytes.value_or(0);
    largest = std::max(largest, i.bytes.value_or(0));
  }
  EXPECT_DOUBLE_EQ(budgeted.needs[0].bytes, 12e9 + largest + (all.needs[0].bytes - sum));
  EXPECT_LT(budgeted.needs[0].bytes, all.needs[0].bytes);
  EXPECT_NE(render_run_cost(budgeted).find("--disk-budget 12.0 GB"), std::string::npos) << render_run_cost(budgeted);
  fs::remove_all(work);
}

TEST(SurveyRunCost, OneMoreMinorOfACudaAlreadyThereCostsItsOwnLayersOnly) {
  const fs::path work = fs::path(::testing::TempDir()) / "run_cost_layers";
  fs::remove_all(work);
  StorageEngine engine(work.string());
  auto cell = [](const std::string& id, const std::string& cuda) {
    Cell c = pypi_cell(id);
    c.cuda = cuda;
    c.image.args = {{"NVCC", "12.4"}, {"NVCC_FROM", "debian"}};
    return c;
  };
  // 2.8 is there; 2.9 and 2.10 share its CUDA 12.8 layers; 2.5 (12.4) and 2.1 (12.1) do not,
  // and 2.2 shares 2.1's, which this run builds first.
  Cell t28 = cell("2.8", "12.8"), t29 = cell("2.9", "12.8"), t210 = cell("2.10", "12.8"), t25 = cell("2.5", "12.4"),
       t21 = cell("2.1", "12.1"), t22 = cell("2.2", "12.1");
  for (const Cell* c : {&t28, &t29, &t210, &t25, &t21, &t22}) engine.tags[c->id] = "tag-" + c->id;
  engine.images = {{"tag-2.8", 7.89e9}};
  const RunCost cost = survey_run_cost(engine, {&t28, &t29, &t210, &t25, &t21, &t22}, work.string(), 1, true);
  std::map<std::string, double> bytes;
  for (const auto& i : cost.new_images) bytes[i.cells.at(0)] = i.bytes.value();
  const double full = measured_image_figures("pypi").bytes, more = measured_image_figures("pypi", true).bytes;
  EXPECT_LT(more, full / 2);
  // CUDA 12.4's pypi image has its own measured size; CUDA 12.1 gets the largest of the recipe.
  const double full_124 = measured_image_figures("pypi", false, "12.4").bytes;
  EXPECT_LT(full_124, full);
  EXPECT_EQ(bytes, (std::map<std::string, double>{{"2.9", more}, {"2.10", more}, {"2.5", full_124}, {"2.1", full},
                                                  {"2.2", more}}));
  EXPECT_NE(render_run_cost(cost).find("measured for one more pypi image of a CUDA already there"), std::string::npos);
  fs::remove_all(work);
}

// debian-cuda and debian-cuda-toolkit of one suite share the toolkit layer: the second costs what
// lies above it; another suite's toolkit image shares nothing.
TEST(SurveyRunCost, ASecondDebianToolkitImageOfTheSuiteCostsItsOwnLayersOnly) {
  const fs::path work = fs::path(::testing::TempDir()) / "run_cost_debian_toolkit";
  fs::remove_all(work);
  StorageEngine engine(work.string());
  auto cell = [](const std::string& id, const std::string& recipe, const std::string& suite) {
    Cell c;
    c.id = id;
    c.image.builtin = recipe;
    c.image.containerfile = "containers/" + recipe + ".Containerfile";
    c.image.args = {{"SUITE", suite}};
    return c;
  };
  Cell cuda = cell("cuda", "debian-cuda", "trixie"), toolkit = cell("toolkit", "debian-cuda-toolkit", "trixie"),
       other = cell("other", "debian-cuda-toolkit", "bookworm");
  for (const Cell* c : {&cuda, &toolkit, &other}) engine.tags[c->id] = "tag-" + c->id;
  const RunCost cost = survey_run_cost(engine, {&cuda, &toolkit, &other}, work.string(), 1, true);
  std::map<std::string, double> bytes;
  for (const auto& i : cost.new_images) bytes[i.cells.at(0)] = i.bytes.value();
  EXPECT_EQ(bytes, (std::map<std::string, double>{{"cuda", measured_image_figures("debian-cuda").bytes},
                                                  {"toolkit", measured_image_figures("debian-cuda-toolkit", true).bytes},
                                                  {"other", measured_image_figures("debian-cuda-toolkit").bytes}}));
  EXPECT_LT(measured_image_figures("debian-cuda-toolkit", true).bytes, measured_image_figures("debian-cuda-toolkit").bytes / 3);
  fs::remove_all(work);
}

// A project's own downloads (its file, its requirements) come from its last run's steps, which
// counted what an empty cache downloads; a cell with no such run is named as not counted.
TEST(SurveyRunCost, AProjectsOwnDownloadsComeFromItsLastRunsSteps) {
  const fs::path work = fs::path(::testing::TempDir()) / "run_cost_project";
  fs::remove_all(work);
  fs::create_directories(work / "results");
  StorageEngine engine(work.string());
  Cell wheel = pypi_cell("wheel"), sdist = pypi_cell("sdist"), fresh = pypi_cell("fresh"), ours = pypi_cell("ours");
  for (Cell* c : {&wheel, &sdist, &fresh}) {
    c->project.emplace();
    c->project->wheel = "lib==1.0";
    engine.tags[c->id] = "t";
  }
  engine.tags["ours"] = "t";
  engine.images = {{"t", 6e9}};
  std::ofstream(work / "results" / "wheel.json") << R"({"seconds": 60, "steps": [
      {"name": "fetch", "seconds": 2, "download_bytes": 30e6}, {"name": "requirements", "seconds": 5, "download_bytes": 12e6},
      {"name": "load", "seconds": 3}]})";
  std::ofstream(work / "results" / "sdist.json") << R"({"seconds": 60, "steps": [{"name": "fetch", "download_bytes": 1e6}]})";
  // Our own kernels' cell downloads nothing of a project's, whatever its last run says.
  std::ofstream(work / "results" / "ours.json") << R"({"seconds": 60, "steps": [{"name": "x", "download_bytes": 5e9}]})";
  const RunCost cost = survey_run_cost(engine, {&wheel, &sdist, &fresh, &ours}, (work / "results").string(), 1, false);
  EXPECT_DOUBLE_EQ(cost.project_download_bytes, 43e6);
  EXPECT_EQ(cost.projects_counted, 2);
  EXPECT_EQ(cost.projects_not_counted, 1);
  const std::string text = render_run_cost(cost);
  EXPECT_NE(text.find("projects' own files and requirements: about 43 MB (for 2 of their 3 cells"), std::string::npos)
      << text;
  EXPECT_NE(text.find("1 not counted: no run that counted yet"), std::string::npos) << text;
  // Only cells without a figure: said so, with no figure of 0 bytes.
  const std::string none = render_run_cost(survey_run_cost(engine, {&fresh}, (work / "results").string(), 1, false));
  EXPECT_NE(none.find("projects' own files and requirements: not counted (none of their 1 cells has a run"),
            std::string::npos) << none;
  // Without a project among the cells, no such line.
  EXPECT_EQ(render_run_cost(survey_run_cost(engine, {&ours}, (work / "results").string(), 1, false))
                .find("projects' own"),
            std::string::npos);
  fs::remove_all(work);
}

// The host engine (a GPU machine that is the environment) builds no image: its time names none.
TEST(RenderRunCost, TheHostEngineNamesNoImagesInItsTime) {
  RunCost cost;
  cost.uses_images = false;
  cost.cell_seconds = cost.wall_seconds = 660;
  const std::string text = render_run_cost(cost);
  EXPECT_NE(text.find("images: none (this machine is the environment)"), std::string::npos) << text;
  EXPECT_NE(text.find("time: about 11 min (cells about 11 min)"), std::string::npos) << text;
  EXPECT_EQ(text.find("images built beside"), std::string::npos) << text;
}

// A cell not run yet: our kernels' compile grows with the CUDA archs; a cell declared to fail its
// build stops early; another library's cell and an atlas pair have their own figures.
TEST(MeasuredFigures, ACellsSecondsFollowItsDeclaration) {
  Cell cpu = pypi_cell("cpu");
  cpu.cuda = "none";
  Cell three = pypi_cell("three"), eight = pypi_cell("eight");
  three.cuda = eight.cuda = "12.4";
  three.cuda_archs = {"8.0", "9.0", "10.0"};
  eight.cuda_archs = {"7.0", "7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "12.0"};
  Cell broken = three;
  broken.expect.push_back({"build", "", "", "xfail", "a CPU-only torch", {}});
  Cell library = three;
  library.project.emplace();
  EXPECT_DOUBLE_EQ(measured_cell_seconds(cpu), measured_cell_seconds(CellWork::own_kernels));
  EXPECT_LT(measured_cell_seconds(three), measured_cell_seconds(eight));
  EXPECT_DOUBLE_EQ(measured_cell_seconds(eight) - measured_cell_seconds(three), 5 * 23);
  EXPECT_LT(measured_cell_seconds(broken), 60);
  EXPECT_DOUBLE_EQ(measured_cell_seconds(library), measured_cell_seconds(CellWork::library));
  // The main job of 0.15.0 (2026-11-29, cold): 106 / 245 s CPU, 175 s with 1 arch, 165 s with
  // 3, 322 s with 8, 11 s for the declared build failure: each figure within a third of what it
  // measured.
  EXPECT_NEAR(measured_cell_seconds(cpu), (106 + 245) / 2.0, (106 + 245) / 6.0);
  EXPECT_NEAR(measured_cell_seconds(three), 165, 165 / 3.0);
  EXPECT_NEAR(measured_cell_seconds(eight), 322, 322 / 3.0);
}

TEST(SurveyRunCost, EverythingPresentNeedsNoStorage) {
  const fs::path work = fs::path(::testing::TempDir()) / "run_cost_present";
  fs::remove_all(work);
  StorageEngine engine(work.string());
  Cell a = pypi_cell("a");
  engine.tags = {{"a", "t"}};
  engine.images = {{"t", 6e9}};
  fs::create_directories(engine.host_build_dir(a));
  const RunCost cost = survey_run_cost(engine, {&a}, work.string(), 1, false);
  EXPECT_TRUE(cost.new_images.empty());
  EXPECT_TRUE(cost.needs.empty());
  EXPECT_TRUE(judge_space(cost.needs).fits);
  EXPECT_NE(render_run_cost(cost).find("images: all 1 present"), std::string::npos);
  fs::remove_all(work);
}

// podman makes its Debian bases with mmdebstrap: where a base is to be made and the host has no
// mmdebstrap, the survey says so with the command that installs it; with every base present,
// nothing is asked of the host.
TEST(SurveyRunCost, AMissingBaseWithoutMmdebstrapIsABlockerWithItsFix) {
  const fs::path work = fs::path(::testing::TempDir()) / "run_cost_blocker";
  fs::remove_all(work);
  fs::create_directories(work / "empty-path");
  const std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", (work / "empty-path").c_str(), 1);  // no mmdebstrap (nor anything else)
  StorageEngine engine(work.string(), "podman");
  Cell a = pypi_cell("a");
  engine.tags = {{"a", "localhost/opmatrix/pypi:new"}};
  const RunCost lacking = survey_run_cost(engine, {&a}, work.string(), 1, true);
  engine.images = {{"localhost/opmatrix-base:bookworm", 1.6e8}};
  const RunCost based = survey_run_cost(engine, {&a}, work.string(), 1, true);
  ::setenv("PATH", saved_path.c_str(), 1);
  ASSERT_EQ(lacking.blockers.size(), 1u);
  EXPECT_EQ(lacking.blockers[0], "the base image localhost/opmatrix-base:bookworm cannot be made: mmdebstrap is not "
                                 "installed: `sudo apt-get install mmdebstrap` (Debian, Ubuntu); podman's Debian base "
                                 "images are made with it");
  EXPECT_NE(render_run_cost(lacking).find("the cells that need it fail at their image step: the base image"),
            std::string::npos);
  EXPECT_TRUE(based.blockers.empty());
  fs::remove_all(work);
}

}  // namespace
}  // namespace opmatrix
