#include <algorithm>
#include <filesystem>
#include <set>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/app.h"
#include "cli_run.h"

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
