#include <filesystem>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "../cli/cli_run.h"
#include "init/init_samples.h"
#include "init/known_cells.h"
#include "init/test_suite.h"
#include "matrix/load.h"
#include "matrix/versions.h"
#include "engine/process.h"
#include "temp_folder.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

CliRun init(std::vector<std::string> args) {
  args.insert(args.begin(), "init");
  return cli(args);
}

std::vector<std::string> strings(const YAML::Node& list) {
  std::vector<std::string> out;
  for (const auto& item : list) out.push_back(item.as<std::string>());
  return out;
}

std::vector<std::string> keys(const YAML::Node& map) {
  std::vector<std::string> out;
  for (const auto& e : map) out.push_back(e.first.as<std::string>());
  return out;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The three starting cells, whatever the library: ids from the prefix, the built-in images.
void expect_known_cells(const YAML::Node& m, const std::string& prefix) {
  const YAML::Node cells = m["cells"];
  ASSERT_TRUE(cells.IsSequence());
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[0]["id"].as<std::string>(), prefix + "-trixie-torch2.6-cpu");
  EXPECT_EQ(cells[0]["torch"].as<std::string>(), "2.6.0");
  EXPECT_EQ(cells[0]["torchvision"].as<std::string>(), "0.21.0");
  EXPECT_EQ(cells[0]["cuda"].as<std::string>(), "none");
  EXPECT_EQ(cells[0]["image"]["builtin"].as<std::string>(), "debian");
  EXPECT_EQ(cells[0]["image"]["suite"].as<std::string>(), "trixie");
  EXPECT_EQ(cells[1]["id"].as<std::string>(), prefix + "-pypi-torch2.15.0-cu13.2");
  EXPECT_EQ(cells[1]["torchvision"].as<std::string>(), "0.29.2");
  EXPECT_EQ(cells[1]["cuda"].as<std::string>(), "13.2");
  EXPECT_EQ(keys(cells[1]["image"]), std::vector<std::string>{"builtin"});
  EXPECT_EQ(cells[1]["image"]["builtin"].as<std::string>(), "pypi");
  EXPECT_EQ(cells[2]["id"].as<std::string>(), prefix + "-pypi-torch2.5.1-cu12.4");
  EXPECT_EQ(cells[2]["torch"].as<std::string>(), "2.5.1");
  EXPECT_EQ(cells[2]["torchvision"].as<std::string>(), "0.20.1");
  EXPECT_EQ(cells[2]["cuda"].as<std::string>(), "12.4");
  EXPECT_EQ(m["version"].as<int>(), 1);
  EXPECT_EQ(strings(m["cuda_archs"]), (std::vector<std::string>{"8.0", "9.0"}));
  EXPECT_FALSE(m["ops"]) << "top-level ops are for opmatrix's own kernels/";
}

// What init writes, the loader takes: no error and no warning. The torchvision of each cell is
// the one validate pairs with its torch (matrix/versions.h: torch 2.15.0 with the 0.29.2 pip
// resolves next to it, PyPI having no 0.30), so validate has nothing to say about the pairs.
void expect_loads(const fs::path& matrix) {
  const LoadResult r = load_matrix_file(matrix.string());
  EXPECT_TRUE(r.matrix.has_value()) << matrix;
  for (const auto& d : r.diagnostics) ADD_FAILURE() << format_diagnostic(d);
  if (!r.matrix) return;
  ASSERT_EQ(r.matrix->cells.size(), 3u);
  for (const auto& c : r.matrix->cells) {
    ASSERT_TRUE(c.project.has_value()) << c.id;
    EXPECT_FALSE(c.image.containerfile.empty()) << c.id << ": the built-in image names its Containerfile";
  }
}

void write_setuptools_library(const TempFolder& dir) {
  dir.write("setup.py", R"src(from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="fancy-ops",
    packages=["fancy_ops"],
    ext_modules=[CUDAExtension("fancy_ops._C", ["csrc/ops.cpp", "csrc/ops_cuda.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
)src");
  dir.write("CMakeLists.txt", "project(fancy)\nfind_package(Torch REQUIRED)\n");
  dir.write("fancy_ops/__init__.py", "import torch\nfrom . import _C\n");
  dir.write("smoke.py", "import fancy_ops\n");
  dir.write("csrc/ops.cpp", R"src(#include <torch/library.h>
// TORCH_LIBRARY(old_name, m) { m.def("gone(Tensor x) -> Tensor"); }
TORCH_LIBRARY(fancy_ops, m) {
  m.def("rotate(Tensor x, "
        "float angle) -> Tensor");
  m.def("blend(Tensor a, Tensor b) -> Tensor");
}
)src");
  dir.write("csrc/ops_cuda.cu", R"src(#include <torch/library.h>
__global__ void warp_kernel(float* x) {}
TORCH_LIBRARY_FRAGMENT(fancy_ops, m) {
  m.def("warp(Tensor x) -> Tensor");
}
TORCH_LIBRARY_IMPL(fancy_ops, CUDA, m) { m.impl("warp", &warp_cuda); }
)src");
  // Build output and vendored code are not the library's.
  dir.write("build/temp/ops.cpp", "TORCH_LIBRARY(stale, m) { m.def(\"a(Tensor x) -> Tensor\"); }\n");
  dir.write("third_party/cutlass/x.h", "TORCH_LIBRARY(vendored, m) { m.def(\"b(Tensor x) -> Tensor\"); }\n");
}

}  // namespace

TEST(InitCommand, SetuptoolsLibraryWithMultiLineDefsAndACudaFile) {
  TempFolder dir;
  write_setuptools_library(dir);
  const CliRun r = init({dir.path.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "  build:     setuptools (setup.py; CMakeLists.txt too, but setuptools is what users "
                              "pip-install)\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "  namespace: fancy_ops, 3 ops (rotate, blend, warp)\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "  import:    fancy_ops (")) << r.out;
  EXPECT_TRUE(contains(r.out, "opmatrix validate --matrix " + (dir.path / "opmatrix.yaml").string())) << r.out;

  const std::string text = read_text_file((dir.path / "opmatrix.yaml").string());
  EXPECT_TRUE(contains(text, "#   opmatrix validate --matrix opmatrix.yaml\n#   opmatrix run --matrix opmatrix.yaml\n"));
  EXPECT_TRUE(contains(text, "#     rotate(Tensor x, float angle) -> Tensor\n")) << text;
  EXPECT_FALSE(contains(text, "stale")) << "build/ is not read";
  EXPECT_FALSE(contains(text, "vendored")) << "third_party/ is not read";
  const YAML::Node m = YAML::Load(text);
  expect_known_cells(m, "fancy-ops");
  const YAML::Node p = m["defaults"]["project"];
  EXPECT_EQ(keys(p), (std::vector<std::string>{"path", "kind", "namespace", "ops", "import", "samples", "smoke"}));
  EXPECT_EQ(p["samples"].as<std::string>(), "opmatrix_samples.py");
  EXPECT_EQ(p["path"].as<std::string>(), ".");
  EXPECT_EQ(p["kind"].as<std::string>(), "setuptools");
  EXPECT_EQ(p["namespace"].as<std::string>(), "fancy_ops");
  EXPECT_EQ(strings(p["ops"]), (std::vector<std::string>{"rotate", "blend", "warp"}));
  EXPECT_EQ(p["import"].as<std::string>(), "fancy_ops");
  EXPECT_EQ(strings(p["smoke"]), (std::vector<std::string>{"python3", "smoke.py"}));
  expect_loads(dir.path / "opmatrix.yaml");

  // The samples file: one call per op, arguments from its schema, valid Python.
  const std::string samples = read_text_file((dir.path / "opmatrix_samples.py").string());
  EXPECT_TRUE(contains(samples, "def samples(device):\n")) << samples;
  EXPECT_TRUE(contains(samples, "(\"fancy_ops::rotate\", (torch.rand(4, 4, device=device), 0.5), {}),")) << samples;
  EXPECT_TRUE(contains(samples, "(\"fancy_ops::blend\", (torch.rand(4, 4, device=device), torch.rand(4, 4, "
                                "device=device)), {}),")) << samples;
  EXPECT_TRUE(contains(samples, "(\"fancy_ops::warp\", (torch.rand(4, 4, device=device),), {}),")) << samples;
  EXPECT_TRUE(contains(r.out, "  samples:   " + (dir.path / "opmatrix_samples.py").string() + " (written")) << r.out;
  const ProcessResult parsed = run_process({{"/usr/bin/python3", "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())",
                                             (dir.path / "opmatrix_samples.py").string()}});
  EXPECT_TRUE(parsed.ok()) << "not valid Python:\n" << samples;

  // One the user has filled in is theirs: kept on a re-run, replaced only with --force.
  dir.write("opmatrix_samples.py", "# mine\n");
  ASSERT_EQ(init({dir.path.string(), "--force", "--output", (dir.path / "again.yaml").string()}).status, 0);
  EXPECT_TRUE(contains(read_text_file((dir.path / "opmatrix_samples.py").string()), "def samples"));
  dir.write("opmatrix_samples.py", "# mine\n");
  const CliRun kept = init({dir.path.string(), "--output", (dir.path / "third.yaml").string()});
  ASSERT_EQ(kept.status, 0) << kept.err;
  EXPECT_EQ(read_text_file((dir.path / "opmatrix_samples.py").string()), "# mine\n");
  EXPECT_TRUE(contains(kept.out, "(already there: kept)")) << kept.out;
}

// Init and validate read one pairing table: every cell init proposes pairs its torch with the
// torchvision validate expects, so the file init writes carries no pairing warning.
TEST(InitCells, TorchvisionIsTheOneValidatePairsWithTheTorch) {
  ASSERT_FALSE(known_cells().empty());
  for (const auto& c : known_cells()) {
    const auto want = upstream_torchvision_for(c.torch);
    const auto have = major_minor(c.torchvision);
    ASSERT_TRUE(want && have) << c.id;
    EXPECT_EQ(have->major, want->major) << c.id;
    EXPECT_EQ(have->minor, want->minor) << c.id << ": torch " << c.torch << " with torchvision " << c.torchvision;
  }
}

TEST(InitSamples, SchemaTypesBecomePythonValues) {
  bool todo = false;
  EXPECT_EQ(sample_argument("Tensor?", todo), "None");
  EXPECT_FALSE(todo);
  EXPECT_EQ(sample_argument("int[2]", todo), "[1, 1]");
  EXPECT_EQ(sample_argument("SymInt", todo), "1");
  EXPECT_EQ(sample_argument("float", todo), "0.5");
  EXPECT_EQ(sample_argument("bool", todo), "False");
  EXPECT_EQ(sample_argument("ScalarType", todo), "torch.float32");
  EXPECT_FALSE(todo);
  EXPECT_EQ(sample_argument("Tensor(a!)", todo), "torch.rand(4, 4, device=device)");
  EXPECT_TRUE(todo) << "a tensor's shape is only a guess";
}

TEST(InitCommand, CmakeLibraryOfFragmentsPicksTheBiggestNamespace) {
  TempFolder parent;
  const fs::path dir = parent.path / "Geo_Ops Lib";
  parent.write("Geo_Ops Lib/CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\nproject(geo)\nfind_package(Torch REQUIRED)\n");
  parent.write("Geo_Ops Lib/src/a.cpp", "TORCH_LIBRARY_FRAGMENT(geo, m) {\n  m.def(\"area(Tensor p) -> Tensor\");\n}\n");
  parent.write("Geo_Ops Lib/src/b.cpp", "TORCH_LIBRARY_FRAGMENT(geo, m) {\n  m.def(\"length(Tensor p) -> Tensor\");\n}\n");
  parent.write("Geo_Ops Lib/src/debug.cpp", "TORCH_LIBRARY(geo_debug, m) { m.def(\"dump(Tensor p) -> ()\"); }\n");
  const CliRun r = init({dir.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "  also:      geo_debug, 1 op (dump)")) << r.out;
  EXPECT_FALSE(contains(r.out, "import:")) << "a CMake build has no Python package to import";
  const std::string text = read_text_file((dir / "opmatrix.yaml").string());
  EXPECT_TRUE(contains(text, "#     geo_debug: 1 op (src/debug.cpp)\n")) << text;
  const YAML::Node m = YAML::Load(text);
  expect_known_cells(m, "geo-ops-lib");
  const YAML::Node p = m["defaults"]["project"];
  EXPECT_EQ(keys(p), (std::vector<std::string>{"path", "kind", "namespace", "ops", "samples"}));
  EXPECT_EQ(p["kind"].as<std::string>(), "cmake");
  EXPECT_EQ(p["namespace"].as<std::string>(), "geo");
  EXPECT_EQ(strings(p["ops"]), (std::vector<std::string>{"area", "length"}));
  expect_loads(dir / "opmatrix.yaml");
}

TEST(InitCommand, Pybind11OnlyExtensionHasNoNamespaceAndImportsItsModule) {
  TempFolder dir;
  dir.write("setup.py", R"src(from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
setup(name="DetrStyleOps", ext_modules=[CUDAExtension("DetrStyleOps", ["src/vision.cpp"])],
      cmdclass={"build_ext": BuildExtension})
)src");
  dir.write("src/vision.cpp", R"src(// no TORCH_LIBRARY here: torch.ops knows nothing of ms_sum
#include <torch/extension.h>
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("ms_sum", &ms_sum, "sum over S");
}
)src");
  const CliRun r = init({dir.path.string(), "--name", "detr"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "namespace: none: pybind11 only")) << r.out;
  const std::string text = read_text_file((dir.path / "opmatrix.yaml").string());
  EXPECT_TRUE(contains(text, "a pybind11-only extension (PYBIND11_MODULE, no TORCH_LIBRARY)")) << text;
  const YAML::Node m = YAML::Load(text);
  expect_known_cells(m, "detr");
  const YAML::Node p = m["defaults"]["project"];
  EXPECT_EQ(keys(p), (std::vector<std::string>{"path", "kind", "import"}));
  EXPECT_EQ(p["import"].as<std::string>(), "DetrStyleOps");
  expect_loads(dir.path / "opmatrix.yaml");
}

TEST(InitCommand, PythonCustomOpsInAFoundPackage) {
  TempFolder dir;
  dir.write("pyproject.toml", "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n");
  dir.write("setup.py", "from setuptools import find_packages, setup\nsetup(name='pyops', packages=find_packages())\n");
  dir.write("pyops/__init__.py", "from . import ops\n");
  dir.write("pyops/ops.py", R"src(import torch

@torch.library.custom_op("pyops::scale", mutates_args=())
def scale(x: torch.Tensor, s: float) -> torch.Tensor:
    return x * s

torch.library.define("pyops::shift(Tensor x, float s) -> Tensor")
)src");
  dir.write("tests/test_ops.py", "import pyops\n");
  const CliRun r = init({dir.path.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = read_text_file((dir.path / "opmatrix.yaml").string());
  EXPECT_TRUE(contains(text, "#     scale\n#     shift(Tensor x, float s) -> Tensor\n")) << text;
  const YAML::Node m = YAML::Load(text);
  expect_known_cells(m, "pyops");
  const YAML::Node p = m["defaults"]["project"];
  EXPECT_EQ(p["namespace"].as<std::string>(), "pyops");
  EXPECT_EQ(strings(p["ops"]), (std::vector<std::string>{"scale", "shift"}));
  EXPECT_EQ(p["import"].as<std::string>(), "pyops");
  EXPECT_FALSE(p["smoke"]);
  expect_loads(dir.path / "opmatrix.yaml");
}

TEST(InitCommand, ALongOpListWrapsAndStillReadsBack) {
  TempFolder dir;
  dir.write("CMakeLists.txt", "find_package(Torch REQUIRED)\n");
  std::string defs;
  std::vector<std::string> ops;
  for (int i = 0; i < 30; ++i) {
    ops.push_back("a_rather_long_operator_name_" + std::to_string(i));
    defs += "  m.def(\"" + ops.back() + "(Tensor x) -> Tensor\");\n";
  }
  dir.write("ops.cpp", "TORCH_LIBRARY(many, m) {\n" + defs + "}\n");
  const CliRun r = init({dir.path.string(), "--print"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(strings(YAML::Load(r.out)["defaults"]["project"]["ops"]), ops);
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
}

TEST(InitCommand, EmptyFolderIsAnErrorNamingWhatItLookedFor) {
  TempFolder dir;
  const CliRun r = init({dir.path.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "opmatrix init: error: no PyTorch op library build in " + dir.path.string() +
                       ": looked for setup.py, pyproject.toml with a build backend, and CMakeLists.txt "
                       "calling find_package(Torch)\n");
  EXPECT_FALSE(fs::exists(dir.path / "opmatrix.yaml"));
  EXPECT_FALSE(fs::exists(dir.path / "opmatrix_samples.py"));
  EXPECT_EQ(init({(dir.path / "missing").string()}).err,
            "opmatrix init: error: DIR '" + (dir.path / "missing").string() + "' is not a folder\n");
}

TEST(InitCommand, ExistingFileNeedsForce) {
  TempFolder dir;
  write_setuptools_library(dir);
  dir.write("opmatrix.yaml", "# mine\n");
  const CliRun r = init({dir.path.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, (dir.path / "opmatrix.yaml").string() + " already exists; --force overwrites it")) << r.err;
  EXPECT_EQ(read_text_file((dir.path / "opmatrix.yaml").string()), "# mine\n");
  ASSERT_EQ(init({dir.path.string(), "--force"}).status, 0);
  EXPECT_TRUE(contains(read_text_file((dir.path / "opmatrix.yaml").string()), "version: 1\n"));
}

TEST(InitCommand, PrintWritesNothingAndOutputGoesElsewhere) {
  TempFolder dir;
  write_setuptools_library(dir);
  const CliRun printed = init({dir.path.string(), "--print"});
  ASSERT_EQ(printed.status, 0) << printed.err;
  EXPECT_EQ(YAML::Load(printed.out)["defaults"]["project"]["path"].as<std::string>(), ".");
  EXPECT_TRUE(contains(printed.err, "namespace: fancy_ops")) << "the findings go to stderr";
  EXPECT_FALSE(fs::exists(dir.path / "opmatrix.yaml"));

  // A matrix one folder up names the library's folder as its project path.
  fs::create_directories(dir.path / "lib");
  fs::rename(dir.path / "setup.py", dir.path / "lib/setup.py");
  fs::rename(dir.path / "csrc", dir.path / "lib/csrc");
  const fs::path out = dir.path / "matrix-lib.yaml";
  const CliRun r = init({(dir.path / "lib").string(), "--output", out.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(YAML::Load(read_text_file(out.string()))["defaults"]["project"]["path"].as<std::string>(), "lib");
  EXPECT_FALSE(fs::exists(dir.path / "lib/opmatrix.yaml"));
  expect_loads(out);

  const CliRun outside = init({(dir.path / "lib").string(), "--output", (dir.path / "other/x.yaml").string()});
  EXPECT_EQ(outside.status, 2);
  EXPECT_TRUE(contains(outside.err, "is not in " + (dir.path / "lib").string() + " or a folder above it")) << outside.err;
  EXPECT_EQ(init({dir.path.string(), "--name", "bad name"}).status, 2);
}

// A test folder: init proposes it as `tests:` (pytest) and what its files import that no torch
// brings (torch's own test helpers need expecttest) as `test_requires:`; the result loads.
TEST(InitCommand, ATestFolderBecomesTestsWithWhatItsFilesImport) {
  TempFolder dir;
  write_setuptools_library(dir);
  dir.write("test/test_ops.py", "import numpy as np\nfrom torch.testing._internal.common_utils import TestCase\n"
                                "import fancy_ops\n\ndef test_rotate():\n    pass\n");
  dir.write("test/conftest.py", "import hypothesis\n");
  dir.write("requirements-test.txt", "pytest-timeout\n");
  const CliRun r = init({dir.path.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = read_text_file((dir.path / "opmatrix.yaml").string());
  const YAML::Node p = YAML::Load(text)["defaults"]["project"];
  EXPECT_EQ(p["tests"].as<std::string>(), "test") << text;
  EXPECT_EQ(strings(p["test_requires"]), (std::vector<std::string>{"hypothesis", "numpy", "expecttest"})) << text;
  EXPECT_TRUE(contains(text, "# hypothesis in test/conftest.py; numpy in test/test_ops.py; torch.testing._internal")) << text;
  EXPECT_TRUE(contains(text, "imports expecttest) in test/test_ops.py\n")) << text;
  EXPECT_TRUE(contains(text, "# requirements-test.txt is read too")) << text;
  expect_loads(dir.path / "opmatrix.yaml");
}

TEST(InitCommand, WithoutATestFolderTestsIsAComment) {
  TempFolder dir;
  write_setuptools_library(dir);
  dir.write("tests_util.py", "import numpy\n");  // no test folder: not a suite
  ASSERT_EQ(init({dir.path.string()}).status, 0);
  const std::string text = read_text_file((dir.path / "opmatrix.yaml").string());
  EXPECT_FALSE(YAML::Load(text)["defaults"]["project"]["tests"]) << text;
  EXPECT_TRUE(contains(text, "# tests: its own test folder")) << text;
}

// init names the requirement files the run reads: one list in two languages, kept the same.
TEST(InitCommand, TheTestRequirementFilesAreTheOnesTheRunReads) {
  const std::string script = read_text_file(std::string(OPMATRIX_SOURCE_DIR) + "/scripts/cell/requirements.py");
  std::smatch tuple;
  ASSERT_TRUE(std::regex_search(script, tuple, std::regex(R"(TEST_FILES = \(([^)]*)\))"))) << "no TEST_FILES";
  std::vector<std::string> names;
  const std::string body = tuple[1].str();
  const std::regex quoted("\"([^\"]+)\"");
  for (std::sregex_iterator it(body.begin(), body.end(), quoted), end; it != end; ++it) names.push_back((*it)[1].str());
  EXPECT_EQ(names, test_requirement_files());
}

}  // namespace opmatrix
