#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "matrix/load.h"
#include "matrix/to_json.h"

namespace fs = std::filesystem;

namespace opmatrix {
namespace {

Matrix load_valid() {
  LoadResult r = load_matrix_file(std::string(OPMATRIX_TEST_DATA) + "/valid/matrix.yaml");
  for (const auto& d : r.diagnostics) ADD_FAILURE() << format_diagnostic(d);
  EXPECT_TRUE(r.matrix.has_value());
  return r.matrix.value_or(Matrix{});
}

std::string errors_of(const LoadResult& r) {
  std::string s;
  for (const auto& d : r.diagnostics) s += format_diagnostic(d) + "\n";
  return s;
}

}  // namespace

TEST(LoadMatrix, ValidFixtureExpandsTemplatesWithGithubSemantics) {
  Matrix m = load_valid();
  std::vector<std::string> ids;
  for (const auto& c : m.cells) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"debian-trixie-cpu", "pypi-torch2.5.1-cu12.4", "pypi-torch2.7.1-cu12.6",
                                           "gpu-host"}));
  const Cell* p = m.find("pypi-torch2.7.1-cu12.6");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->torch, "2.7.1");
  EXPECT_EQ(p->torchvision, "0.22.1");  // came from include, injected as a field
  EXPECT_EQ(p->cuda, "12.6");
  EXPECT_EQ(p->image.args, (std::vector<std::pair<std::string, std::string>>{
                               {"TORCH", "2.7.1"}, {"TORCHVISION", "0.22.1"}, {"NVCC", "12.6"}}));
  ASSERT_EQ(p->expect.size(), 1u);
  EXPECT_EQ(p->expect[0].status, "xfail");  // the default
  EXPECT_EQ(p->expect[0].arch, "10.0");
}

TEST(LoadMatrix, DefaultsApplyUnlessTheCellSaysOtherwise) {
  Matrix m = load_valid();
  ASSERT_NE(m.find("debian-trixie-cpu"), nullptr);
  EXPECT_EQ(m.find("debian-trixie-cpu")->where, (std::vector<std::string>{"local", "github"}));
  const Cell* host = m.find("gpu-host");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->runner, Runner::host);
  EXPECT_FALSE(host->in_default);
  EXPECT_EQ(host->cuda_archs, (std::vector<std::string>{"8.0", "9.0", "10.0"}));
  EXPECT_EQ(host->timeouts, (std::vector<std::pair<std::string, int>>{{"build", 900}}));
}

TEST(LoadMatrix, MissingFileIsAnErrorNamingIt) {
  LoadResult r = load_matrix_file("/nonexistent/matrix.yaml");
  EXPECT_FALSE(r.matrix);
  EXPECT_EQ(errors_of(r), "/nonexistent/matrix.yaml:1:1: error: cannot open the matrix file (does it exist? `opmatrix init` writes opmatrix.yaml for the op library in this folder)\n");
}

TEST(LoadMatrix, FiftyMegabyteFileIsRefusedWithoutReadingItAll) {
  const fs::path big = fs::temp_directory_path() / "opmatrix-big-matrix.yaml";
  {
    std::ofstream out(big, std::ios::binary);
    std::string line = "# " + std::string(1021, 'x') + "\n";
    for (int i = 0; i < 50 * 1024; ++i) out << line;
  }
  LoadResult r = load_matrix_file(big.string());
  fs::remove(big);
  EXPECT_FALSE(r.matrix);
  EXPECT_EQ(errors_of(r), big.string() + ":1:1: error: file is 52428800 bytes; a matrix file may be at most "
                                         "4194304 bytes\n");
}

TEST(LoadMatrix, WarningsAloneStillLoad) {
  LoadResult r = load_matrix_text(R"(version: 1
ops: [nms]
cells:
  - id: sid
    torch: "2.14.1"
    torchvision: "0.27.0"
    cuda: none
    runner: host
)", "m.yaml", ".");
  ASSERT_TRUE(r.matrix.has_value()) << errors_of(r);
  EXPECT_EQ(errors_of(r), "m.yaml:6:18: warning: cell 'sid': torch 2.14.1 is released with torchvision 0.29, not "
                          "0.27.0; the torchvision check will tell whether this pair loads and registers\n");
}

TEST(LoadMatrix, ReportsEveryErrorNotJustTheFirst) {
  LoadResult r = load_matrix_text(R"(version: 1
ops: [nms]
cells:
  - id: a/b
    torch: "x"
    torchvision: "0.21.0"
    cuda: "12"
    runner: host
)", "m.yaml", ".");
  EXPECT_FALSE(r.matrix);
  EXPECT_EQ(r.diagnostics.size(), 3u) << errors_of(r);
}

namespace {
// A matrix with one host cell holding `project` (YAML flow mapping) and `expect` lines,
// resolved against a temporary repository with a CMake project in proj/.
LoadResult load_project_cell(const std::string& project, const std::string& expect = "") {
  const fs::path repo = fs::temp_directory_path() / "opmatrix-project-test";
  fs::create_directories(repo / "proj");
  std::ofstream(repo / "proj" / "CMakeLists.txt") << "project(p)\n";
  return load_matrix_text("version: 1\nops: [nms]\ncells:\n  - id: p\n    torch: \"2.6.0\"\n"
                          "    torchvision: \"0.21.0\"\n    cuda: none\n    runner: host\n    project: " +
                              project + "\n" + expect,
                          "m.yaml", repo.string());
}
}  // namespace

TEST(LoadMatrix, ProjectCellReadsItsFieldsAndDetectsTheKind) {
  LoadResult r = load_project_cell("{path: proj/, namespace: boxops, ops: [box_iou], smoke: [python3, smoke.py]}",
                                   "    expect: [{check: meta, op: box_iou, reason: none yet}]");
  ASSERT_TRUE(r.matrix.has_value()) << errors_of(r);
  const Cell& c = r.matrix->cells.at(0);
  ASSERT_TRUE(c.project.has_value());
  EXPECT_EQ(c.project->path, "proj");
  EXPECT_EQ(c.project->kind, "cmake");  // from its CMakeLists.txt
  EXPECT_EQ(c.project->name, "p");      // its own name: CMake's project(p)
  EXPECT_EQ(c.project->label(), "p (proj)");
  EXPECT_EQ(c.project->smoke, (std::vector<std::string>{"python3", "smoke.py"}));
  EXPECT_EQ(c.expect.at(0).op, "box_iou");  // the project's op, not the matrix's
}

TEST(LoadMatrix, ProjectOutsideTheRepositoryOrMalformedIsRefused) {
  EXPECT_NE(errors_of(load_project_cell("{path: ../proj}")).find("is outside the matrix's folder"), std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{path: /etc}")).find("path: . for the repository itself"), std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{path: proj, kind: bazel}")).find("cmake or setuptools"), std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{path: proj, kind: setuptools}")).find("has no setup.py or pyproject.toml"),
            std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{path: proj, ops: [a]}")).find("needs the 'namespace'"), std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{path: proj, namespace: \"a;b\"}")).find("not a C++ identifier"),
            std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{path: proj, smoke: \"rm -rf /\"}")).find("'smoke'"), std::string::npos);
}

TEST(LoadMatrix, ProjectTestsAreAFolderRunByPytestOrACommand) {
  fs::create_directories(fs::temp_directory_path() / "opmatrix-project-test" / "proj" / "test");
  LoadResult folder = load_project_cell("{path: proj, tests: test, test_requires: [expecttest, \"numpy>=1.21\"]}");
  ASSERT_TRUE(folder.matrix.has_value()) << errors_of(folder);
  const Project& p = *folder.matrix->cells.at(0).project;
  EXPECT_EQ(p.tests, (std::vector<std::string>{"python3", "-m", "pytest", "-q", "test"}));
  EXPECT_EQ(p.test_requires, (std::vector<std::string>{"expecttest", "numpy>=1.21"}));
  LoadResult argv = load_project_cell("{pypi: torch-scatter==2.1.2, tests: [python3, -m, pytest, -x, test]}");
  ASSERT_TRUE(argv.matrix.has_value()) << errors_of(argv);
  EXPECT_EQ(argv.matrix->cells.at(0).project->tests.size(), 5u);

  EXPECT_NE(errors_of(load_project_cell("{path: proj, tests: nosuch}")).find("tests folder 'proj/nosuch' does not exist"),
            std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{wheel: fbgemm-gpu-cpu==1.0.0, tests: test}")).find("has no source folder"),
            std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{path: proj, tests: test, test_requires: [\"--index-url=http://x\"]}"))
                .find("is not a requirement pip reads"),
            std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{path: proj, test_requires: [pytest-xdist]}")).find("needs 'tests'"),
            std::string::npos);
  LoadResult requires = load_project_cell("{pypi: torch-sparse==0.6.18, requires: [torch-scatter==2.1.2]}");
  ASSERT_TRUE(requires.matrix.has_value()) << errors_of(requires);
  EXPECT_EQ(requires.matrix->cells.at(0).project->requires_also, std::vector<std::string>{"torch-scatter==2.1.2"});
  EXPECT_NE(errors_of(load_project_cell("{path: proj, requires: [\"-e .\"]}")).find("requires '-e .' is not a requirement"),
            std::string::npos);
}

TEST(LoadMatrix, AReferenceCellIsOnePerLibraryAndAProjects) {
  LoadResult one = load_project_cell("{pypi: torch-scatter==2.1.2}", "    reference: true");
  ASSERT_TRUE(one.matrix.has_value()) << errors_of(one);
  EXPECT_TRUE(one.matrix->cells.at(0).reference);
  const std::string cell = "  - id: {}\n    torch: \"2.6.0\"\n    torchvision: \"0.21.0\"\n    cuda: none\n    runner: host\n";
  LoadResult two = load_matrix_text(
      "version: 1\nops: [nms]\ncells:\n" + fmt::format(cell, "a") + "    project: {pypi: x==1.0}\n    reference: true\n" +
          fmt::format(cell, "b") + "    project: {pypi: x==1.0}\n    reference: true\n" + fmt::format(cell, "c") +
          "    reference: true\n",
      "m.yaml", ".");
  EXPECT_NE(errors_of(two).find("cell 'b': pypi x==1.0 has a reference cell already ('a', line 4): mark one"),
            std::string::npos) << errors_of(two);
  EXPECT_NE(errors_of(two).find("cell 'c': 'reference' marks a project's reference cell"), std::string::npos);
}

TEST(LoadMatrix, ProjectFromPypiIsAPinnedReleaseAndOneSourceOnly) {
  LoadResult sdist = load_project_cell("{pypi: torch-scatter==2.1.2, namespace: torch_scatter, import: torch_scatter}");
  ASSERT_TRUE(sdist.matrix.has_value()) << errors_of(sdist);
  const Project& p = *sdist.matrix->cells.at(0).project;
  EXPECT_EQ(p.pypi, "torch-scatter==2.1.2");
  EXPECT_EQ(p.kind, "setuptools");  // pip builds the sdist, whatever its backend
  EXPECT_TRUE(p.path.empty());
  EXPECT_EQ(p.label(), "pypi torch-scatter==2.1.2");
  LoadResult wheel = load_project_cell("{wheel: fbgemm-gpu-cpu==1.0.0, namespace: fbgemm}");
  ASSERT_TRUE(wheel.matrix.has_value()) << errors_of(wheel);
  EXPECT_EQ(wheel.matrix->cells.at(0).project->kind, "wheel");

  EXPECT_NE(errors_of(load_project_cell("{pypi: torch-scatter}")).find("must be a pinned release, NAME==VERSION"),
            std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{wheel: \"x>=1\"}")).find("pinned release"), std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{path: proj, pypi: a==1}")).find("exactly one of 'path'"), std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{namespace: a}")).find("exactly one of 'path'"), std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{wheel: a==1, kind: cmake}")).find("installed, not built"), std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{pypi: a==1, kind: cmake}")).find("built from its sdist by pip"),
            std::string::npos);
}

}  // namespace opmatrix

namespace opmatrix {

TEST(LoadMatrix, ProjectSamplesIsAPythonFileUnderTheMatrixFolder) {
  const fs::path repo = fs::temp_directory_path() / "opmatrix-project-test";
  fs::create_directories(repo / "proj");
  std::ofstream(repo / "proj" / "samples.py") << "def samples(device):\n    return []\n";
  LoadResult r = load_project_cell("{path: proj, namespace: boxops, samples: proj/samples.py}");
  ASSERT_TRUE(r.matrix.has_value()) << errors_of(r);
  EXPECT_EQ(r.matrix->cells.at(0).project->samples, "proj/samples.py");
  // A PyPI project has no folder of its own: its samples live under the matrix's folder too.
  LoadResult pypi = load_project_cell("{pypi: torch-scatter==2.1.2, namespace: torch_scatter, samples: proj/samples.py}");
  ASSERT_TRUE(pypi.matrix.has_value()) << errors_of(pypi);

  EXPECT_NE(errors_of(load_project_cell("{path: proj, samples: proj/missing.py}")).find("samples file 'proj/missing.py' does not exist"),
            std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{path: proj, samples: proj/CMakeLists.txt}")).find("must be a Python file (.py)"),
            std::string::npos);
  EXPECT_NE(errors_of(load_project_cell("{path: proj, samples: ../samples.py}")).find("leaves the repository"),
            std::string::npos);
}

TEST(LoadMatrix, ExpectNamesASubtestOfACheckThatReportsThem) {
  LoadResult ok = load_project_cell(
      "{path: proj, namespace: boxops, ops: [box_iou]}",
      "    expect:\n"
      "      - {check: opcheck, op: box_iou, subtest: test_faketensor, reason: upper-bound Meta}\n"
      "      - {check: fake-device, op: \"torchvision::deform_conv2d\", reason: torchvision's own}");
  ASSERT_TRUE(ok.matrix.has_value()) << errors_of(ok);
  EXPECT_EQ(ok.matrix->cells.at(0).expect.at(0).subtest, "test_faketensor");
  EXPECT_EQ(ok.matrix->cells.at(0).expect.at(1).op, "torchvision::deform_conv2d");

  const std::string typo = errors_of(load_project_cell(
      "{path: proj}", "    expect: [{check: opcheck, subtest: test_fake_tensor, reason: r}]"));
  EXPECT_NE(typo.find("unknown sub-test 'test_fake_tensor' of check 'opcheck'"), std::string::npos) << typo;
  EXPECT_NE(typo.find("did you mean 'test_faketensor'"), std::string::npos) << typo;
  const std::string none = errors_of(load_project_cell("{path: proj}", "    expect: [{check: build, subtest: x, reason: r}]"));
  EXPECT_NE(none.find("check 'build' reports no sub-tests; 'subtest' is for load, stable-abi, opcheck"), std::string::npos) << none;
  // torchvision's ops only for the checks that judge them.
  const std::string tv = errors_of(load_project_cell(
      "{path: proj, namespace: boxops, ops: [box_iou]}", "    expect: [{check: meta, op: \"torchvision::nms\", reason: r}]"));
  EXPECT_NE(tv.find("op 'torchvision::nms' is not in the project's 'ops'"), std::string::npos) << tv;
}

}  // namespace opmatrix

namespace opmatrix {

// `promises:`: per op and as a whole; every mistake at its line and column.
TEST(LoadMatrix, PromisesAreReadPerOpAndAsAWhole) {
  LoadResult r = load_project_cell(
      "{wheel: lib==1.0, namespace: lib, ops: [quant, dense, packed],\n"
      "      promises: {backends: [cpu], why: \"the CPU wheel\",\n"
      "                 ops: {quant: {backends: [cuda], registered: with_gpu, arch: \"10.0\", why: \"sm_100 kernels\"},\n"
      "                       packed: {registered: on_some_cpus, why: \"AVX512 only\"}}}}");
  ASSERT_TRUE(r.matrix.has_value()) << errors_of(r);
  const Promises& p = r.matrix->cells.at(0).project->promises;
  EXPECT_EQ(p.backends, std::vector<std::string>{"cpu"});
  ASSERT_TRUE(p.op("quant"));
  EXPECT_EQ(p.op("quant")->backends, std::vector<std::string>{"cuda"});
  EXPECT_EQ(p.op("quant")->registered, "with_gpu");
  EXPECT_EQ(p.op("quant")->arch, "10.0");
  EXPECT_EQ(p.op("packed")->registered, "on_some_cpus");
  EXPECT_FALSE(p.op("dense"));
  // Carried into every result file (and the cache key) only where declared.
  const nlohmann::json j = cell_to_json(r.matrix->cells.at(0));
  EXPECT_EQ(j["project"]["promises"]["ops"]["quant"]["arch"], "10.0");
}

TEST(LoadMatrix, MalformedPromisesAreRefusedAtTheirPlace) {
  auto error = [](const std::string& promises) {
    return errors_of(load_project_cell("{wheel: lib==1.0, namespace: lib, ops: [quant], promises: " + promises + "}"));
  };
  EXPECT_NE(error("{ops: {quant: {backends: [gpu], why: x}}}").find("backend 'gpu' is not one of cpu, cuda"),
            std::string::npos);
  EXPECT_NE(error("{ops: {qaunt: {backends: [cuda], why: x}}}").find("'qaunt' is not one of the project's ops (quant)"),
            std::string::npos);
  EXPECT_NE(error("{ops: {quant: {backends: [cuda]}}}").find("needs 'why'"), std::string::npos);
  EXPECT_NE(error("{ops: {quant: {registered: sometimes, why: x}}}").find("'registered' must be one of always, "
                                                                         "with_gpu, on_some_cpus"),
            std::string::npos);
  EXPECT_NE(error("{ops: {quant: {backends: [cuda], arch: \"10.0\", why: x}}}").find("goes with 'registered: with_gpu'"),
            std::string::npos);
  EXPECT_NE(error("{backends: [cpu]}").find("say why in 'why'"), std::string::npos);
  EXPECT_NE(error("{bakends: [cpu]}").find("unknown key 'bakends' in 'promises' (did you mean 'backends'?)"),
            std::string::npos);
  // FILE:LINE:COL
  EXPECT_NE(error("{ops: {quant: {backends: [gpu], why: x}}}").find("m.yaml:"), std::string::npos);
}

}  // namespace opmatrix
