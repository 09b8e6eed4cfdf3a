// Built-in images by name: the build args a cell gets from `image: {builtin: …}` are the ones
// our own cells carried by hand (so their image tags, content hashes of the args, stay put).
#include <gtest/gtest.h>

#include "images/debian_suites.h"
#include "matrix/builtin_images.h"
#include "matrix/load.h"

namespace opmatrix {
namespace {

using Args = std::vector<std::pair<std::string, std::string>>;

LoadResult load_cell(const std::string& versions, const std::string& image) {
  return load_matrix_text("version: 1\nops: [nms]\ncuda_archs: [\"8.0\"]\ncells:\n  - id: c\n" + versions +
                              "    image: " + image + "\n",
                          "m.yaml", ".");
}

Cell only_cell(const LoadResult& r) {
  for (const auto& d : r.diagnostics)
    if (d.severity == Severity::error) ADD_FAILURE() << format_diagnostic(d);
  return r.matrix && r.matrix->cells.size() == 1 ? r.matrix->cells[0] : Cell{};
}

std::string errors(const LoadResult& r) {
  std::string s;
  for (const auto& d : r.diagnostics) s += format_diagnostic(d) + "\n";
  return s;
}

const char* kTorch26Cpu = "    torch: \"2.6.0\"\n    torchvision: \"0.21.0\"\n    cuda: none\n";
const char* kPypi251 = "    torch: \"2.5.1\"\n    torchvision: \"0.20.1\"\n    cuda: \"12.4\"\n";

}  // namespace

TEST(BuiltinImages, DebianSuiteFollowsTheTorchDebianShips) {
  const Cell c = only_cell(load_cell(kTorch26Cpu, "{builtin: debian}"));
  EXPECT_EQ(c.image.builtin, "debian");
  EXPECT_EQ(c.image.containerfile, "containers/debian.Containerfile");
  EXPECT_EQ(c.image.args, (Args{{"SUITE", "trixie"}}));
  EXPECT_EQ(debian_suite_for_torch("1.13.1"), "bookworm");
  EXPECT_EQ(debian_suite_for_torch("2.14.1"), "sid");
  EXPECT_EQ(debian_suite_for_torch("2.5.1"), "");
}

TEST(BuiltinImages, ScalarShorthandNamesRecipeAndSuite) {
  const Cell c = only_cell(load_cell("    torch: \"1.13.1\"\n    torchvision: \"0.14.1\"\n    cuda: \"11.8\"\n",
                                      "debian-cuda-toolkit:bookworm"));
  EXPECT_EQ(c.image.containerfile, "containers/debian-cuda-toolkit.Containerfile");
  EXPECT_EQ(c.image.args, (Args{{"SUITE", "bookworm"}}));
}

TEST(BuiltinImages, PypiCuda12TakesDebiansToolkitFromTrixie) {
  const Cell c = only_cell(load_cell(kPypi251, "{builtin: pypi}"));
  EXPECT_EQ(c.image.args, (Args{{"SUITE", "bookworm"}, {"TORCH", "2.5.1"}, {"TORCHVISION", "0.20.1"}, {"NVCC", "12.4"},
                                {"NVCC_FROM", "debian"}, {"NVCC_BASE", "debian:trixie"}}));
}

TEST(BuiltinImages, PypiCuda13TakesTheNvccWheelOfTheSameVersion) {
  const Cell c = only_cell(load_cell("    torch: \"2.15.0\"\n    torchvision: \"0.29.2\"\n    cuda: \"13.2\"\n", "pypi"));
  EXPECT_EQ(c.image.args, (Args{{"SUITE", "bookworm"}, {"TORCH", "2.15.0"}, {"TORCHVISION", "0.29.2"},
                                {"NVCC", "13.2"}, {"NVCC_FROM", "wheel"}}));
}

TEST(BuiltinImages, OldTorchPinsNumpyOneAndOptionsOverride) {
  const Cell c = only_cell(load_cell("    torch: \"2.1.2\"\n    torchvision: \"0.16.2\"\n    cuda: \"12.1\"\n",
                                      "{builtin: pypi, torchvision_no_deps: true}"));
  EXPECT_EQ(c.image.args, (Args{{"SUITE", "bookworm"}, {"TORCH", "2.1.2"}, {"TORCHVISION", "0.16.2"},
                                {"TORCHVISION_NO_DEPS", "1"}, {"NVCC", "12.4"}, {"NVCC_FROM", "debian"},
                                {"NVCC_BASE", "debian:trixie"}, {"PIP_EXTRA", "numpy==1.26.4"}}));
  const Cell d = only_cell(load_cell(kPypi251, "{builtin: pypi, nvcc: \"13.0\"}"));
  EXPECT_EQ(d.image.args[3], (std::pair<std::string, std::string>{"NVCC", "13.0"}));
  EXPECT_EQ(d.image.args[4], (std::pair<std::string, std::string>{"NVCC_FROM", "wheel"}));
}

TEST(BuiltinImages, MistakesAreNamedWithTheFix) {
  EXPECT_NE(errors(load_cell(kTorch26Cpu, "{builtin: debain}")).find("did you mean 'debian'"), std::string::npos);
  EXPECT_NE(errors(load_cell(kTorch26Cpu, "{builtin: debian, nvcc: \"12.4\"}")).find("takes no option 'nvcc'"),
            std::string::npos);
  EXPECT_NE(errors(load_cell(kPypi251, "{builtin: debian}")).find("use debian-cuda"), std::string::npos);
  EXPECT_NE(errors(load_cell(kTorch26Cpu, "pypi")).find("CUDA builds"), std::string::npos);
  EXPECT_NE(errors(load_cell(kPypi251, "{builtin: pypi, nvcc: \"12.4\", nvcc_from: wheel}")).find("only from CUDA 13"),
            std::string::npos);
  EXPECT_NE(errors(load_cell(kPypi251, "{builtin: pypi, nvcc: \"12.6\"}")).find("11.8 (bookworm) or 12.4 (trixie)"),
            std::string::npos);
  EXPECT_NE(errors(load_cell(kPypi251, "{builtin: debian-cuda}")).find("no Debian suite ships torch 2.5.1"),
            std::string::npos);
  const std::string e = errors(load_cell(kTorch26Cpu, "{builtin: debian, suite: trxie}"));
  EXPECT_NE(e.find("m.yaml:"), std::string::npos);
  EXPECT_NE(e.find("did you mean 'trixie'"), std::string::npos);
}

}  // namespace opmatrix
