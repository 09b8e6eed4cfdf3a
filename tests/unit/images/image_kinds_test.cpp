// The registry of built-in image kinds (images/image_kinds.h): every kind's module registered
// itself (none dropped by the static library), each names its own Containerfile, and what the
// callers ask of a kind (recipe, figures, shared layers, init cells) comes back from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "images/image_kinds.h"
#include "matrix/builtin_images.h"
#include "matrix/load.h"

namespace fs = std::filesystem;

namespace opmatrix {
namespace {

std::vector<std::string> kind_names() {
  std::vector<std::string> names;
  for (const ImageKind* k : image_kinds()) names.push_back(k->name());
  return names;
}

Cell cell_of(const std::string& versions, const std::string& image) {
  const LoadResult r = load_matrix_text(
      "version: 1\nops: [nms]\ncuda_archs: [\"8.0\"]\ncells:\n  - id: c\n" + versions + "    image: " + image + "\n",
      "m.yaml", ".");
  for (const auto& d : r.diagnostics) ADD_FAILURE() << format_diagnostic(d);
  return r.matrix && r.matrix->cells.size() == 1 ? r.matrix->cells[0] : Cell{};
}

const char* kTrixieCuda = "    torch: \"2.6.0\"\n    torchvision: \"0.21.0\"\n    cuda: \"12.4\"\n";

}  // namespace

// Every built-in Containerfile has its kind's module linked in (none dropped), once, and the
// registry lists them in name order. A new kind is its module and its Containerfile: this test
// names none of them.
TEST(ImageKinds, EveryContainerfileHasItsKindRegisteredOnceInNameOrder) {
  std::vector<std::string> containerfiles;
  for (const auto& entry : fs::directory_iterator(fs::path(OPMATRIX_SOURCE_DIR) / "containers")) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = ".Containerfile";
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      containerfiles.push_back(name.substr(0, name.size() - suffix.size()));
  }
  std::sort(containerfiles.begin(), containerfiles.end());
  EXPECT_FALSE(containerfiles.empty());
  EXPECT_EQ(kind_names(), containerfiles);
}

TEST(ImageKinds, EachNamesItsOwnContainerfile) {
  for (const ImageKind* k : image_kinds()) {
    EXPECT_EQ(k->recipe().containerfile, "containers/" + k->name() + ".Containerfile");
    EXPECT_TRUE(fs::is_regular_file(fs::path(OPMATRIX_SOURCE_DIR) / k->recipe().containerfile)) << k->name();
    EXPECT_FALSE(k->recipe().what.empty()) << k->name();
    EXPECT_EQ(k->recipe().options.front(), "suite") << k->name() << ": every kind builds on a Debian suite";
  }
}

TEST(ImageKinds, LookupByNameAndTheRecipesLoadSees) {
  ASSERT_NE(find_image_kind("pypi"), nullptr);
  EXPECT_EQ(find_image_kind("pypi")->name(), "pypi");
  EXPECT_EQ(find_image_kind("debain"), nullptr);
  EXPECT_EQ(find_image_kind(""), nullptr);
  std::vector<std::string> recipes;
  for (const auto& r : builtin_image_recipes()) recipes.push_back(r.name);
  EXPECT_EQ(recipes, kind_names());
  ASSERT_NE(find_builtin_image("debian-cuda"), nullptr);
  EXPECT_EQ(find_builtin_image("debian-cuda"), &find_image_kind("debian-cuda")->recipe());
}

TEST(ImageKinds, EveryKindHasMeasuredFiguresAlone) {
  for (const ImageKind* k : image_kinds()) {
    const auto f = k->figures(false, "");
    ASSERT_TRUE(f.has_value()) << k->name();
    EXPECT_TRUE(f->measured) << k->name();
    EXPECT_GT(f->bytes, f->largest_layer_bytes) << k->name();
  }
  EXPECT_FALSE(find_image_kind("debian")->figures(true, "").has_value()) << "debian shares no CUDA layers";
  EXPECT_LT(find_image_kind("pypi")->figures(false, "12.4")->bytes, find_image_kind("pypi")->figures(false, "")->bytes);
}

TEST(ImageKinds, DebianToolkitImagesOfOneSuiteShareTheirLayers) {
  const Cell cuda = cell_of(kTrixieCuda, "{builtin: debian-cuda, suite: trixie}");
  const Cell toolkit = cell_of(kTrixieCuda, "{builtin: debian-cuda-toolkit, suite: trixie}");
  const Cell bookworm = cell_of("    torch: \"1.13.1\"\n    torchvision: \"0.14.1\"\n    cuda: \"11.8\"\n",
                                "debian-cuda-toolkit:bookworm");
  const auto key = [](const Cell& c) { return find_image_kind(c.image.builtin)->cuda_layers_key(c); };
  EXPECT_EQ(key(cuda), "debian toolkit|SUITE=trixie");
  EXPECT_EQ(key(cuda), key(toolkit));
  EXPECT_NE(key(toolkit), key(bookworm));
  EXPECT_EQ(key(cell_of("    torch: \"2.6.0\"\n    torchvision: \"0.21.0\"\n    cuda: none\n", "debian")), "");
}

TEST(ImageKinds, PypiImagesShareLayersByCudaNvccAndSuite) {
  const Cell a = cell_of("    torch: \"2.5.1\"\n    torchvision: \"0.20.1\"\n    cuda: \"12.4\"\n", "pypi");
  const Cell b = cell_of("    torch: \"2.6.0\"\n    torchvision: \"0.21.0\"\n    cuda: \"12.4\"\n", "pypi");
  const ImageKind& pypi = *find_image_kind("pypi");
  EXPECT_EQ(pypi.cuda_layers_key(a), "pypi cuda=12.4|SUITE=bookworm|NVCC=12.4|NVCC_FROM=debian");
  EXPECT_EQ(pypi.cuda_layers_key(a), pypi.cuda_layers_key(b));
}

// The messages built from the kinds' tables (Debian's suites and toolkits) read as they did when
// they were written out by hand.
TEST(ImageKinds, MessagesFromTheSuiteTableNameEverySuite) {
  const auto errors_of = [](const std::string& versions, const std::string& image) {
    const LoadResult r = load_matrix_text(
        "version: 1\nops: [nms]\ncuda_archs: [\"8.0\"]\ncells:\n  - id: c\n" + versions + "    image: " + image + "\n",
        "m.yaml", ".");
    std::string s;
    for (const auto& d : r.diagnostics) s += d.message + "\n";
    return s;
  };
  EXPECT_EQ(errors_of("    torch: \"2.5.1\"\n    torchvision: \"0.20.1\"\n    cuda: none\n", "debian"),
            "no Debian suite ships torch 2.5.1 (bookworm has 1.13, trixie 2.6, sid 2.14): name the suite (suite: "
            "trixie) or take the PyPI wheels (builtin: pypi)\n");
  EXPECT_EQ(errors_of(kTrixieCuda, "{builtin: pypi, nvcc: \"12.6\"}"),
            "Debian's non-free CUDA toolkit is 11.8 (bookworm) or 12.4 (trixie), not 12.6: pick one of those, or "
            "nvcc_from: wheel for CUDA 13+\n");
}

TEST(ImageKinds, InitCellsComeFromTheKindsThatProposeThem) {
  std::vector<std::string> ids;
  for (const ImageKind* k : image_kinds())
    for (const InitCell& c : k->init_cells()) ids.push_back(k->name() + ": " + c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"debian: trixie-torch2.6-cpu", "pypi: pypi-torch2.15.0-cu13.2",
                                           "pypi: pypi-torch2.5.1-cu12.4"}));
}

}  // namespace opmatrix
