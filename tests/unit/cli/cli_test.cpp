#include <algorithm>
#include <filesystem>
#include <set>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/app.h"
#include "cli_run.h"
#include "run/cell_lock.h"

namespace opmatrix {
namespace {

const std::string kValid = std::string(OPMATRIX_TEST_DATA) + "/valid/matrix.yaml";
const std::string kRepoMatrix = std::string(OPMATRIX_SOURCE_DIR) + "/matrix.yaml";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(Cli, ValidateSummarisesAValidMatrix) {
  CliRun r = cli({"validate", "--matrix", kValid});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kValid + ": ok: 4 cells (3 local, 3 in the default run, 3 github, 1 gpu), 2 ops, 0 warnings\n");
}

TEST(Cli, ListJsonHasTheFieldsTheWorkflowNeeds) {
  CliRun r = cli({"list", "--matrix", kValid, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto cells = nlohmann::json::parse(r.out);
  ASSERT_TRUE(cells.is_array());
  ASSERT_EQ(cells.size(), 4u);
  for (const auto& c : cells)
    for (const char* key : {"id", "torch", "torchvision", "cuda", "where"}) EXPECT_TRUE(c.contains(key)) << key;
  EXPECT_EQ(cells[0]["where"], nlohmann::json::array({"local", "github"}));
}

TEST(Cli, ListWhereFilters) {
  CliRun r = cli({"list", "--matrix", kValid, "--where", "gpu", "--json"});
  ASSERT_EQ(r.status, 0);
  auto cells = nlohmann::json::parse(r.out);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0]["id"], "gpu-host");
}

TEST(Cli, GithubMatrixMatchesGoldenFiles) {
  for (const std::string where : {"github", "gpu"}) {
    CliRun r = cli({"github-matrix", "--matrix", kValid, "--where", where});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, read_file(std::string(OPMATRIX_TEST_DATA) + "/golden/github-matrix-" + where + ".json"));
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "must be one line for $GITHUB_OUTPUT";
  }
}

TEST(Cli, RepoMatrixValidatesAndHasTheDeclaredCells) {
  CliRun v = cli({"validate", "--matrix", kRepoMatrix});
  EXPECT_EQ(v.status, 0) << v.err;
  CliRun r = cli({"list", "--matrix", kRepoMatrix, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto cells = nlohmann::json::parse(r.out);
  std::set<std::string> ids;
  for (const auto& c : cells) ids.insert(c["id"].get<std::string>());
  for (const char* id : {"bookworm-torch1.13-cpu", "trixie-torch2.6-cpu", "trixie-torch2.6-cu12.4",
                         "sid-torch2.14-cpu", "bookworm-torch1.13-cpu-cuda11.8", "gpu-host"})
    EXPECT_TRUE(ids.count(id)) << id;
}

TEST(Cli, UnknownFlagSuggestsTheRealOne) {
  CliRun r = cli({"validate", "--matrx", "x.yaml"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unexpected argument '--matrx' (did you mean '--matrix'?)"), std::string::npos) << r.err;
}

TEST(Cli, UnknownSubcommandSuggestsTheRealOne) {
  CliRun r = cli({"valdate"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("(did you mean 'validate'?)"), std::string::npos) << r.err;
}

TEST(Cli, MissingOptionValueIsUsageError) {
  CliRun r = cli({"list", "--matrix"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--matrix"), std::string::npos) << r.err;
}

TEST(Cli, BadWhereValueIsUsageError) {
  CliRun r = cli({"github-matrix", "--matrix", kValid, "--where", "cloud"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cloud"), std::string::npos) << r.err;
}

// --jobs not given is its own default (one cell, and a second once no image is left to build):
// 0 given is no way to ask for it.
TEST(Cli, JobsBelowOneIsUsageErrorNamingTheFlag) {
  for (const char* n : {"0", "-1"}) {
    CliRun r = cli({"run", "--matrix", kValid, "--dry-run", "--jobs", n});
    EXPECT_EQ(r.status, 2) << n;
    EXPECT_NE(r.err.find("--jobs"), std::string::npos) << r.err;
  }
}

TEST(Cli, HelpOnEverySubcommandExitsZero) {
  for (const char* sub : {"validate", "list", "github-matrix"}) {
    CliRun r = cli({sub, "--help"});
    EXPECT_EQ(r.status, 0) << sub;
    EXPECT_NE(r.out.find("--matrix"), std::string::npos) << sub << ": " << r.out;
  }
  CliRun top = cli({"--help"});
  EXPECT_EQ(top.status, 0);
  EXPECT_NE(top.out.find("github-matrix"), std::string::npos);
}

TEST(Cli, NoSubcommandIsUsageError) { EXPECT_EQ(cli({}).status, 2); }

}  // namespace opmatrix

namespace opmatrix {

// The plan's dry run on the repository's matrix: one line, one job per runtime cell of our
// kernels (no project cells), each loading every build.
TEST(Cli, GithubMatrixCrossLoadPlansOneJobPerRuntime) {
  CliRun r = cli({"github-matrix", "--matrix", kRepoMatrix, "--where", "github", "--cross-load"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "must be one line for $GITHUB_OUTPUT";
  const auto jobs = nlohmann::json::parse(r.out)["include"];
  ASSERT_GE(jobs.size(), 2u);
  std::set<std::string> ids;
  for (const auto& j : jobs) {
    ids.insert(j["id"].get<std::string>());
    EXPECT_EQ(j["builds"].size(), jobs.size());
    EXPECT_EQ(j["engine"], "docker");
  }
  EXPECT_TRUE(ids.count("bookworm-torch1.13-cpu"));
  EXPECT_FALSE(ids.count("boxops-trixie-torch2.6-cpu-cmake")) << "another op library is not cross-loaded";
}

TEST(Cli, CrossLoadMergeNamesAFileThatIsNotOne) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "cli_merge";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "report.json") << R"({"schema": "opmatrix-report"})";
  CliRun r = cli({"cross-load", "--merge", (dir / "report.json").string(), "--results", (dir / "out").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("report.json is not a cross-load file"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "_cross-load.json"));
  CliRun missing = cli({"cross-load", "--merge", (dir / "nothing.json").string()});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("--merge " + (dir / "nothing.json").string() + " is not a file"), std::string::npos);
  CliRun both = cli({"cross-load", "--merge", (dir / "report.json").string(), "--runtime", "a"});
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("--merge loads nothing"), std::string::npos) << both.err;
  std::filesystem::remove_all(dir);
}

}  // namespace opmatrix

namespace opmatrix {
namespace {

// Two runs that select one cell: while one holds the cell's build folder, the other neither
// builds there nor writes the cell's results; it names the first and exits 1.
// A throw-away repository: a CMake library and a matrix of one host cell of it, `id`.
std::filesystem::path one_cell_repo(const std::string& name, const std::string& id) {
  const std::filesystem::path root = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "lib");
  std::ofstream(root / "lib" / "CMakeLists.txt") << "project(x)\n";
  std::ofstream(root / "matrix.yaml") << "version: 1\nops: [x]\ncells:\n"
                                         "  - id: " << id << "\n    torch: \"2.6.0\"\n    torchvision: \"0.21.0\"\n"
                                         "    cuda: none\n    runner: host\n"
                                         "    project: {path: lib, kind: cmake, namespace: x}\n";
  return root;
}

TEST(CliRun, ASecondRunOfACellLeavesTheFirstOnesBuildTreeAlone) {
  const std::filesystem::path root = one_cell_repo("cli_run_busy_cell", "busy");
  const std::filesystem::path cell_dir = root / "work" / "cells" / "busy";
  std::filesystem::create_directories(cell_dir / "host-build");
  std::ofstream(cell_dir / "host-build" / "half-built.o") << "the first run's object";
  auto first = CellWorkLock::try_acquire(cell_dir.string(), "pid 1 (the first run)", nullptr);
  ASSERT_TRUE(first);

  CliRun r = cli({"run", "--matrix", (root / "matrix.yaml").string(), "--engine", "host", "--cell", "busy",
                  "--work-dir", (root / "work").string(), "--results", (root / "results").string(),
                  "--no-cross-load"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("busy: not run: its build folder " + cell_dir.string() +
                       " is in use by another opmatrix run: pid 1 (the first run)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("not run: build folder in use by pid 1 (the first run)"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(root / "results" / "busy.json")) << "the first run's results are its own";
  std::vector<std::string> tree;
  for (const auto& e : std::filesystem::recursive_directory_iterator(cell_dir / "host-build"))
    tree.push_back(e.path().filename().string());
  EXPECT_EQ(tree, std::vector<std::string>{"half-built.o"});
  std::ifstream in(cell_dir / "host-build" / "half-built.o");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "the first run's object");
}

// `report` on no results: one line, its own status, nothing written.
TEST(CliReport, NothingToReportIsOneLineAndStatus3) {
  const std::filesystem::path root = std::filesystem::path(::testing::TempDir()) / "cli_report_nothing";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "empty");
  for (const auto& dir : {root / "missing", root / "empty"}) {
    CliRun r = cli({"report", "--results", dir.string(), "--format", "md", "-o", (root / "report.md").string()});
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(r.err, "opmatrix report: nothing to report: " + dir.string() +
                         " holds no results (no cell has run; `opmatrix run` writes them); no report written\n");
    EXPECT_FALSE(std::filesystem::exists(root / "report.md"));
  }
}

// The dry run says what would happen and starts nothing: no results folder, no build folder.
TEST(CliRun, DryRunStartsNothingAndSaysWhetherItFits) {
  const std::filesystem::path root = one_cell_repo("cli_run_dry", "a");
  CliRun r = cli({"run", "--dry-run", "--matrix", (root / "matrix.yaml").string(), "--engine", "host", "--cell", "a",
                  "--work-dir", (root / "work").string(), "--results", (root / "results").string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "run     a\n");
  EXPECT_NE(r.err.find("opmatrix run --dry-run: 1 cell would run; what it would cost:\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  time: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("it fits; nothing was started"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(root / "results"));
  EXPECT_FALSE(std::filesystem::exists(root / "work"));
}

// --disk-budget: a size above zero; the dry run says the cells go image by image under it.
TEST(CliRun, DiskBudgetIsPositiveAndTheDryRunSaysItGoesImageByImage) {
  const std::filesystem::path root = one_cell_repo("cli_run_budget", "a");
  const std::vector<std::string> run = {"run", "--dry-run", "--matrix", (root / "matrix.yaml").string(), "--engine",
                                        "host", "--cell", "a", "--work-dir", (root / "work").string()};
  std::vector<std::string> zero = run, budget = run;
  zero.insert(zero.end(), {"--disk-budget", "0"});
  budget.insert(budget.end(), {"--disk-budget", "3"});
  CliRun bad = cli(zero);
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_NE(bad.err.find("--disk-budget: a size in GB above 0"), std::string::npos) << bad.err;
  CliRun ok = cli(budget);
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.err.find("--disk-budget 3.0 GB: the cells run image by image"), std::string::npos) << ok.err;
  EXPECT_FALSE(std::filesystem::exists(root / "work"));
}

// The repository's matrix: every PyPI torch minor from 2.0 to the newest is in the GitHub set (the
// GitHub set), and the local default is a small set of its own.
TEST(CliList, TheAtlasHoldsEveryPypiTorchMinorAndTheDefaultIsSmall) {
  CliRun g = cli({"list", "--matrix", kRepoMatrix, "--where", "github", "--json"});
  ASSERT_EQ(g.status, 0) << g.err;
  std::set<std::string> minors;
  for (const auto& c : nlohmann::json::parse(g.out)) {
    const std::string id = c["id"].get<std::string>(), torch = c["torch"].get<std::string>();
    if (id.rfind("pypi-torch", 0) == 0) minors.insert(torch.substr(0, torch.rfind('.')));
  }
  for (int minor = 0; minor <= 15; ++minor) EXPECT_TRUE(minors.count("2." + std::to_string(minor))) << "2." << minor;
  CliRun d = cli({"list", "--matrix", kRepoMatrix, "--where", "default", "--json"});
  ASSERT_EQ(d.status, 0) << d.err;
  const auto local = nlohmann::json::parse(d.out);
  EXPECT_LE(local.size(), 12u);
  for (const auto& c : local) EXPECT_NE(c["where"].dump().find("github"), std::string::npos) << c["id"];
}

}  // namespace
}  // namespace opmatrix

namespace opmatrix {

namespace {
// Runs `args` with `dir` as the working folder (restored after).
CliRun cli_in(const std::filesystem::path& dir, std::vector<std::string> args) {
  const auto before = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  CliRun r = cli(std::move(args));
  std::filesystem::current_path(before);
  return r;
}
}  // namespace

// In an op library's folder, after `opmatrix init`, the commands need no --matrix.
TEST(CliDefaultMatrix, OpmatrixYamlFirstThenMatrixYaml) {
  const std::filesystem::path root = std::filesystem::path(::testing::TempDir()) / "cli_default_matrix";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  CliRun none = cli_in(root, {"validate"});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("opmatrix.yaml:1:1: error: cannot open the matrix file"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("`opmatrix init` writes opmatrix.yaml"), std::string::npos) << none.err;

  std::filesystem::create_directories(root / "lib");
  std::ofstream(root / "lib" / "CMakeLists.txt") << "project(x)\n";
  const std::string one_cell = "version: 1\nops: [x]\ncells:\n  - id: a\n    torch: \"2.6.0\"\n    torchvision: \"0.21.0\"\n"
                               "    cuda: none\n    runner: host\n    project: {path: lib, kind: cmake, namespace: x}\n";
  std::ofstream(root / "matrix.yaml") << one_cell;
  CliRun repo = cli_in(root, {"validate"});
  EXPECT_EQ(repo.status, 0) << repo.err;
  EXPECT_EQ(repo.out.rfind("matrix.yaml: ok", 0), 0u) << repo.out;

  std::ofstream(root / "opmatrix.yaml") << one_cell;
  CliRun lib = cli_in(root, {"validate"});
  EXPECT_EQ(lib.status, 0) << lib.err;
  EXPECT_EQ(lib.out.rfind("opmatrix.yaml: ok", 0), 0u) << lib.out;
}

// The version users pin is the newest entry of CHANGELOG.md: a bump without its entry (what
// changed in verdicts) fails here.
TEST(CliVersion, IsTheChangelogsNewestEntry) {
  CliRun r = cli({"--version"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string version = r.out;
  while (!version.empty() && version.back() == '\n') version.pop_back();
  std::ifstream in(std::string(OPMATRIX_SOURCE_DIR) + "/CHANGELOG.md");
  ASSERT_TRUE(in) << "CHANGELOG.md is missing";
  std::string line;
  while (std::getline(in, line) && line.rfind("## ", 0) != 0) {
  }
  EXPECT_EQ(line.rfind("## " + version + " ", 0), 0u) << "CHANGELOG.md's newest entry is '" << line
                                                       << "', opmatrix --version says " << version;
}

}  // namespace opmatrix

namespace opmatrix {

// `opmatrix atlas`: the file read and counted; a runtime or library it does not hold is a usage
// error naming the file and the closest name, before anything runs.
TEST(CliAtlas, ValidateCountsThePairsAndUnknownNamesAreUsageErrors) {
  const std::string atlas = std::string(OPMATRIX_SOURCE_DIR) + "/tests/atlas/atlas.yaml";
  CliRun ok = cli({"atlas", "validate", "--atlas", atlas});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("2 libraries, 2 releases x 2 runtimes = 4 pairs"), std::string::npos) << ok.out;

  CliRun runtime = cli({"atlas", "run", "--atlas", atlas, "--runtime", "trixie-torch2.6-cpuu", "--dry-run"});
  EXPECT_EQ(runtime.status, 2);
  EXPECT_NE(runtime.err.find("--runtime trixie-torch2.6-cpuu: not a runtime of " + atlas +
                             " (did you mean 'trixie-torch2.6-cpu'?)"), std::string::npos) << runtime.err;
  CliRun library = cli({"atlas", "run", "--atlas", atlas, "--library", "torchaoo"});
  EXPECT_EQ(library.status, 2);
  EXPECT_NE(library.err.find("(did you mean 'torchao'?)"), std::string::npos) << library.err;
  CliRun action = cli({"atlas", "publish"});
  EXPECT_EQ(action.status, 2);
}

// `opmatrix atlas report`: atlas.json names one evidence file per library, written before it; an
// evidence file of a library the atlas no longer holds goes; `diff` reads the atlas back through
// them and finds its own results in it.
TEST(CliAtlas, ReportWritesAnEvidenceFilePerLibraryThatDiffReadsThroughAtlasJson) {
  const std::string atlas = std::string(OPMATRIX_SOURCE_DIR) + "/tests/atlas/atlas.yaml";
  const std::string results = std::string(OPMATRIX_SOURCE_DIR) + "/tests/data/atlas/results";
  const std::filesystem::path out = std::filesystem::temp_directory_path() / "opmatrix-cli-atlas-report";
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out / "evidence");
  std::ofstream(out / "evidence" / "gone-library.json") << "{}";
  CliRun r = cli({"atlas", "report", "--atlas", atlas, "--results", results, "--output", out.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(out / "evidence" / "torchao.json"));
  EXPECT_TRUE(std::filesystem::is_regular_file(out / "evidence" / "fbgemm-gpu-cpu.json"));
  EXPECT_FALSE(std::filesystem::exists(out / "evidence" / "gone-library.json"));
  std::ifstream in(out / "atlas.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["cells_files"].size(), 2u);
  CliRun d = cli({"diff", (out / "atlas.json").string(), results});
  EXPECT_EQ(d.status, 0) << d.out << d.err;
  std::filesystem::remove_all(out);
}

// `opmatrix atlas runtimes`: the job matrix of .github/workflows/atlas.yml, one job per runtime in
// the atlas's order, on one line (it goes to $GITHUB_OUTPUT); --runtime narrows it, an unknown one
// is a usage error like run's.
TEST(CliAtlas, RuntimesIsTheJobMatrixOfTheWorkflow) {
  const std::string atlas = std::string(OPMATRIX_SOURCE_DIR) + "/tests/atlas/atlas.yaml";
  CliRun all = cli({"atlas", "runtimes", "--atlas", atlas});
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(all.out,
            "{\"include\":[{\"runtime\":\"trixie-torch2.6-cpu\"},{\"runtime\":\"pypi-torch2.15.0-cu13.2\"}]}\n");
  CliRun one = cli({"atlas", "runtimes", "--atlas", atlas, "--runtime", "pypi-torch2.15.0-cu13.2"});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(nlohmann::json::parse(one.out),
            nlohmann::json::parse(R"({"include": [{"runtime": "pypi-torch2.15.0-cu13.2"}]})"));
  CliRun unknown = cli({"atlas", "runtimes", "--atlas", atlas, "--runtime", "sid-torch2.14-cpuu"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_EQ(unknown.out, "");
}

}  // namespace opmatrix
