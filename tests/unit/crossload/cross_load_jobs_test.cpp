// The cross-load spread over GitHub jobs: which jobs the plan starts, and the merge of their
// single-runtime files into the one file a local run writes (crossload/cross_load_jobs.h).
#include <gtest/gtest.h>

#include <stdexcept>

#include "crossload/cross_load_jobs.h"

namespace opmatrix {
namespace {

Cell cell(const std::string& id, bool project = false, Runner runner = Runner::container,
          std::vector<std::string> where = {"local", "github"}) {
  Cell c;
  c.id = id;
  c.runner = runner;
  c.where = std::move(where);
  if (project) c.project = Project{};
  return c;
}

TEST(CrossLoadJobMatrix, OneJobPerContainerCellOfOurKernelsEachLoadingEveryBuild) {
  Cell a = cell("bookworm-torch1.13-cpu"), b = cell("pypi-torch2.15.0-cu13.2"), lib = cell("boxops-trixie", true),
       host = cell("gpu-host", false, Runner::host, {"gpu"}), gpu = cell("gpu-box", false, Runner::container, {"gpu"});
  const nlohmann::json m = cross_load_job_matrix({&a, &lib, &b, &host, &gpu});
  ASSERT_EQ(m["include"].size(), 3u) << m.dump();
  EXPECT_EQ(m["include"][0]["id"], "bookworm-torch1.13-cpu");
  EXPECT_EQ(m["include"][1]["id"], "pypi-torch2.15.0-cu13.2");
  EXPECT_EQ(m["include"][0]["engine"], "docker");
  EXPECT_EQ(m["include"][0]["runs_on"], nlohmann::json::array({"ubuntu-24.04"}));
  // A GPU cell's runtime job needs the GPU runner its cell job had.
  EXPECT_EQ(m["include"][2]["runs_on"], nlohmann::json::array({"self-hosted", "linux", "x64", "gpu"}));
  const nlohmann::json builds = {"bookworm-torch1.13-cpu", "pypi-torch2.15.0-cu13.2", "gpu-box"};
  for (const auto& job : m["include"]) EXPECT_EQ(job["builds"], builds);
}

TEST(CrossLoadJobMatrix, FewerThanTwoRuntimesStartNoJob) {
  Cell a = cell("a"), lib = cell("lib", true);
  EXPECT_EQ(cross_load_job_matrix({&a, &lib}).dump(), R"({"include":[]})");
  EXPECT_EQ(cross_load_job_matrix({}).dump(), R"({"include":[]})");
}

nlohmann::json part(const std::string& runtime, const std::vector<std::string>& builds, bool agrees) {
  nlohmann::json p = {{"schema_version", 2}, {"kind", "opmatrix-cross-load"}, {"engine", "docker"},
                      {"builds", nlohmann::json::array()}, {"runtimes", nlohmann::json::array()},
                      {"pairs", nlohmann::json::array()}};
  for (const auto& b : builds) {
    p["builds"].push_back({{"cell", b}, {"abi", "aten"}, {"namespace", "opmatrix"}, {"library_hash", "h-" + b}});
    p["pairs"].push_back({{"built_in", b}, {"run_in", runtime}, {"outcome", "loads"}, {"prediction_agrees", agrees}});
  }
  p["runtimes"].push_back({{"cell", runtime}, {"seconds", 3.0}});
  // The job of one runtime says the others' images are not on its machine.
  for (const auto& b : builds)
    if (b != runtime) p["runtimes_unavailable"].push_back(b + ": its image is gone");
  p["prediction"] = {{"pairs", builds.size()}, {"agree", agrees ? builds.size() : 0},
                     {"disagree", agrees ? nlohmann::json::array() : nlohmann::json::array({runtime + ": predicted x"})}};
  return p;
}

TEST(MergeCrossLoads, EveryRuntimeAndPairOnceAndTheAgreementCountedAgain) {
  const nlohmann::json merged = merge_cross_loads({part("a", {"a", "b"}, true), part("b", {"a", "b"}, false)},
                                                  {"a.json", "b.json"});
  EXPECT_EQ(merged["kind"], "opmatrix-cross-load");
  EXPECT_EQ(merged["engine"], "docker");
  EXPECT_EQ(merged["builds"].size(), 2u);  // the same builds in both parts
  ASSERT_EQ(merged["runtimes"].size(), 2u);
  EXPECT_EQ(merged["runtimes"][1]["cell"], "b");
  EXPECT_EQ(merged["pairs"].size(), 4u);
  EXPECT_EQ(merged["prediction"]["pairs"], 4);
  EXPECT_EQ(merged["prediction"]["agree"], 2);
  EXPECT_EQ(merged["prediction"]["disagree"], nlohmann::json::array({"b: predicted x"}));
  // Each part's "not here" runtime is the other part's own: nothing is unavailable in the whole.
  EXPECT_FALSE(merged.contains("runtimes_unavailable")) << merged.dump();
}

TEST(MergeCrossLoads, ARuntimeNoJobRanStaysUnavailable) {
  nlohmann::json p = part("a", {"a", "c"}, true);
  const nlohmann::json merged = merge_cross_loads({p}, {"a.json"});
  EXPECT_EQ(merged["runtimes_unavailable"], nlohmann::json::array({"c: its image is gone"}));
}

TEST(MergeCrossLoads, RefusesWhatIsNotACrossLoadFileAndMixedEngines) {
  try {
    merge_cross_loads({part("a", {"a"}, true), nlohmann::json{{"kind", "opmatrix-report"}}}, {"a.json", "report.json"});
    FAIL() << "merged a report";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("report.json is not a cross-load file"), std::string::npos) << e.what();
  }
  nlohmann::json podman = part("b", {"b"}, true);
  podman["engine"] = "podman";
  EXPECT_THROW(merge_cross_loads({part("a", {"a"}, true), podman}, {"a.json", "b.json"}), std::runtime_error);
  nlohmann::json newer = part("b", {"b"}, true);
  newer["schema_version"] = 3;
  EXPECT_THROW(merge_cross_loads({newer}, {"b.json"}), std::runtime_error);
}

}  // namespace
}  // namespace opmatrix

// The job of one runtime (`cross-load --runtime ID`) over the fake engine: it loads every
// build into that runtime only, says nothing of the others' images, and takes an upstream
// subject from a build folder when the subject's image is elsewhere.
#include "../run/fake_engine.h"
#include "results/cell_result.h"
#include "crossload/cross_load.h"
#include "util/atomic_write.h"

namespace opmatrix {
namespace {

class HereEngine : public fake::FakeEngine {
 public:
  using FakeEngine::FakeEngine;
  std::string image_id(const std::string& tag) override { return tag == "img-a" ? "id-a" : ""; }  // only a's is here
};

void write_result(const std::string& dir, const Cell& c, const std::string& image, const std::string& tv_ext) {
  CellResult r;
  r.engine = "fake";
  r.image = image;
  r.cell = {{"id", c.id}};
  r.versions = {{"torch", "2.6.0"}, {"torchvision_ext", tv_ext}};
  r.checks.push_back({"", "versions", "", Status::pass, "", "", 0, {}, std::nullopt});
  r.checks.push_back({"", "build", "", Status::pass, "", "", 0, {}, std::nullopt});
  write_file_atomically(dir + "/" + c.id + ".json", to_json(r).dump());
}

// Cells a and b with results (b's torchvision the stable-ABI one), a build of our kernels in each
// build folder, b's torchvision subject beside its build, and every load canned to succeed.
void two_builds_with_results(fake::FakeEngine& engine, const Matrix& m, const std::string& results) {
  namespace fs = std::filesystem;
  write_result(results, m.cells[0], "img-a", "/venv/torchvision/_C.so");
  write_result(results, m.cells[1], "img-b", "/venv/torchvision/_C_stable.so");
  for (const auto& c : m.cells) {
    fs::create_directories(engine.host_build_dir(c) + "/kernels");
    std::ofstream(engine.host_build_dir(c) + "/kernels/libopmatrix_ops.so") << "lib of " << c.id;
  }
  fs::create_directories(engine.host_build_dir(m.cells[1]) + "/xload-subjects");
  std::ofstream(engine.host_build_dir(m.cells[1]) + "/xload-subjects/_C_stable.so") << "torchvision stable";
  const std::string loaded = R"({"report": {"libraries": [{"loaded": true}], "ops": {"nms": {"CPU": true}}}})";
  engine.on("cross-load", fake::CannedStep::prints("{\"results\": [" + loaded + ", " + loaded + "]}"));
  engine.on("cross-load", "torchvision", fake::CannedStep::prints("{\"results\": [" + loaded + "]}"));
}

TEST(CrossLoadOneRuntime, LoadsEveryBuildIntoItsRuntimeOnly) {
  namespace fs = std::filesystem;
  const fs::path work = fs::path(::testing::TempDir()) / "xload_one_runtime";
  fs::remove_all(work);
  const std::string results = (work / "results").string();
  fs::create_directories(results);
  HereEngine engine((work / "work").string());
  Matrix m;
  m.ops = {"nms"};
  m.cells = {cell("a"), cell("b")};
  // b's subject, copied out of b's image by b's own job, came with its build.
  two_builds_with_results(engine, m, results);
  CrossLoadSettings settings;
  settings.results_dir = results;
  settings.runtimes = {"a"};
  std::vector<std::string> said;
  const Progress progress = [&](const std::string&, const std::string& line) { said.push_back(line); };
  const nlohmann::json out = run_cross_load(m, engine, settings, progress);
  ASSERT_EQ(out["runtimes"].size(), 1u) << out.dump();
  EXPECT_EQ(out["runtimes"][0]["cell"], "a");
  EXPECT_FALSE(out.contains("runtimes_unavailable")) << out.dump();  // b is another job's runtime
  std::vector<std::string> built_in;
  for (const auto& p : out["pairs"]) {
    EXPECT_EQ(p["run_in"], "a");
    built_in.push_back(p.value("built_in", "") + "/" + p.value("namespace", ""));
  }
  EXPECT_EQ(built_in, (std::vector<std::string>{"a/opmatrix", "b/opmatrix", "b/torchvision"}));
  // Nothing ran in b's image (b's imports are read in a's: readelf reads a file the same anywhere).
  ASSERT_FALSE(engine.images_used.empty());
  for (std::size_t i = 0; i < engine.images_used.size(); ++i)
    EXPECT_EQ(engine.images_used[i], "img-a") << engine.commands[i].step;

  // --subjects-only: copies a runtime's subject, loads nothing.
  engine.clear_records();
  settings.runtimes = {"a"};
  settings.subjects_only = true;
  run_cross_load(m, engine, settings, progress);
  EXPECT_TRUE(engine.commands_for("cross-load").empty());
  fs::remove_all(work);
}

class BothHereEngine : public fake::FakeEngine {
 public:
  using FakeEngine::FakeEngine;
  std::string image_id(const std::string& tag) override { return tag.empty() ? "" : "id-" + tag; }
};

// A rerun with nothing new (the same builds, the same runtime images) starts no container: the
// outcomes, the subject copied out of an image and the predictions all stand.
TEST(CrossLoadRerun, NothingNewStartsNothing) {
  namespace fs = std::filesystem;
  const fs::path work = fs::path(::testing::TempDir()) / "xload_rerun";
  fs::remove_all(work);
  const std::string results = (work / "results").string();
  fs::create_directories(results);
  BothHereEngine engine((work / "work").string());
  Matrix m;
  m.ops = {"nms"};
  m.cells = {cell("a"), cell("b")};
  // b's subject: what the fake's copy step would have written out of b's image.
  two_builds_with_results(engine, m, results);
  CrossLoadSettings settings;
  settings.results_dir = results;
  const Progress quiet = [](const std::string&, const std::string&) {};
  const nlohmann::json first = run_cross_load(m, engine, settings, quiet);
  EXPECT_FALSE(engine.commands_for("cross-load-subject").empty());  // copied once, from img-b
  EXPECT_FALSE(engine.commands_for("cross-load").empty());
  engine.clear_records();
  const nlohmann::json again = run_cross_load(m, engine, settings, quiet);
  EXPECT_TRUE(engine.commands.empty()) << engine.commands.front().step;
  EXPECT_EQ(again["pairs"].size(), first["pairs"].size());
  EXPECT_EQ(again["prediction"], first["prediction"]);
  for (const auto& row : again["runtimes"]) EXPECT_TRUE(row.value("cached", false)) << row.dump();
  fs::remove_all(work);
}

}  // namespace
}  // namespace opmatrix
