// The atlas file: read like matrix.yaml (every error with its line and column), its runtimes
// cells of the matrix it names, expanded runtime-major into one wheel-project cell per pair.
#include <gtest/gtest.h>

#include "atlas/atlas_file.h"
#include "init/temp_folder.h"

namespace opmatrix {
namespace {

const char* kMatrix = R"(version: 1
ops: [nms]
cuda_archs: ["9.0"]
cells:
  - {id: cpu-a, torch: "2.6.0", torchvision: "0.21.0", cuda: none, image: "debian:trixie",
     expect: [{check: arch, arch: "9.0", reason: "about our kernels"}]}
  - {id: gpu-b, torch: "2.15.0", torchvision: "0.29.2", cuda: "13.2", image: pypi}
  - {id: lib-c, torch: "2.6.0", torchvision: "0.21.0", cuda: none, image: "debian:trixie", project: {wheel: "x==1"}}
)";

struct Folder {
  TempFolder dir;
  Folder() { dir.write("matrix.yaml", kMatrix); }
  AtlasLoad load(const std::string& atlas) const {
    dir.write("atlas.yaml", atlas);
    return load_atlas_file((dir.path / "atlas.yaml").string());
  }
};

std::string errors_of(const AtlasLoad& r, const std::string& folder) {
  std::string out;
  for (const auto& d : r.diagnostics) {
    std::string line = format_diagnostic(d);
    if (line.rfind(folder, 0) == 0) line = line.substr(folder.size() + 1);
    out += line + "\n";
  }
  return out;
}

}  // namespace

TEST(AtlasFile, ExpandsRuntimeMajorIntoWheelPairs) {
  Folder f;
  const AtlasLoad r = f.load(R"(version: 1
matrix: matrix.yaml
runtimes: [cpu-a, gpu-b]
libraries:
  - {name: torchaudio, import: torchaudio, namespace: torchaudio, releases: ["2.4.1", "2.5.1"]}
  - {name: fbgemm-gpu-cpu, releases: ["1.0.0"]}
)");
  ASSERT_TRUE(r.atlas) << errors_of(r, f.dir.path.string());
  const Matrix& m = r.atlas->pairs;
  ASSERT_EQ(m.cells.size(), 6u);
  std::vector<std::string> ids;
  for (const auto& c : m.cells) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"torchaudio-2.4.1--cpu-a", "torchaudio-2.5.1--cpu-a",
                                           "fbgemm-gpu-cpu-1.0.0--cpu-a", "torchaudio-2.4.1--gpu-b",
                                           "torchaudio-2.5.1--gpu-b", "fbgemm-gpu-cpu-1.0.0--gpu-b"}));
  const Cell& first = m.cells.front();
  EXPECT_TRUE(first.atlas_pair);
  EXPECT_EQ(first.torch, "2.6.0");
  EXPECT_TRUE(first.expect.empty()) << "the runtime's expectations are about our kernels, not the library";
  ASSERT_TRUE(first.project);
  EXPECT_EQ(first.project->wheel, "torchaudio==2.4.1");
  EXPECT_EQ(first.project->kind, "wheel");
  EXPECT_EQ(first.project->ns, "torchaudio");
  EXPECT_EQ(first.project->import_module, "torchaudio");
  EXPECT_EQ(m.cells[3].cuda, "13.2");
  EXPECT_EQ(m.find("fbgemm-gpu-cpu-1.0.0--gpu-b")->project->ns, "");
}

TEST(AtlasFile, EveryMistakeIsNamedWithItsLineAndColumn) {
  Folder f;
  const AtlasLoad r = f.load(R"(version: 1
matrix: matrix.yaml
runtimes: [cpu-a, gpu-bb, lib-c]
libraries:
  - {name: torchaudio, releases: ["2.5.1", "2.5.1"], imports: torchaudio}
  - {name: "bad name", releases: []}
  - {name: torchaudio, namespace: "a::b", releases: ["x1"]}
)");
  EXPECT_FALSE(r.atlas);
  EXPECT_EQ(errors_of(r, f.dir.path.string()),
            "atlas.yaml:3:19: error: no cell 'gpu-bb' in " + (f.dir.path / "matrix.yaml").string() +
                " (did you mean 'gpu-b'?)\n"
                "atlas.yaml:3:27: error: cell 'lib-c' checks a project (wheel x==1): a runtime is a cell of torch alone\n"
                "atlas.yaml:5:44: error: '2.5.1' is listed twice in 'releases'\n"
                "atlas.yaml:5:54: error: unknown key 'imports' in a library (did you mean 'import'?)\n"
                "atlas.yaml:6:12: error: 'bad name' is not a PyPI distribution name\n"
                "atlas.yaml:6:34: error: 'releases' must be a non-empty list\n"
                "atlas.yaml:7:12: error: library 'torchaudio' is listed twice (first at line 5)\n"
                "atlas.yaml:7:35: error: namespace 'a::b' is not a dispatcher namespace (e.g. torchaudio)\n"
                "atlas.yaml:7:54: error: 'x1' in 'releases' is not a release as pip pins it (e.g. 2.5.1)\n");
}

TEST(AtlasFile, AMatrixThatDoesNotLoadIsNamedWhereTheAtlasNamesIt) {
  Folder f;
  const AtlasLoad r = f.load("version: 1\nmatrix: nowhere.yaml\nruntimes: [a]\nlibraries: [{name: x, releases: [\"1\"]}]\n");
  EXPECT_FALSE(r.atlas);
  const std::string e = errors_of(r, f.dir.path.string());
  EXPECT_NE(e.find("atlas.yaml:2:9: error: the matrix 'nowhere.yaml' does not load: "), std::string::npos) << e;
  EXPECT_NE(e.find("cannot open the matrix file"), std::string::npos) << e;
}

TEST(AtlasFile, AMissingFileSaysWhatItIs) {
  const AtlasLoad r = load_atlas_file("/nonexistent/atlas.yaml");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(format_diagnostic(r.diagnostics[0]),
            "/nonexistent/atlas.yaml:1:1: error: cannot open the atlas file (does it exist? the repository's "
            "atlas.yaml is the example)");
}

}  // namespace opmatrix
