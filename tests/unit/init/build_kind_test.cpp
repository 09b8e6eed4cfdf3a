#include <initializer_list>
#include <utility>

#include <gtest/gtest.h>

#include "init/build_kind.h"
#include "temp_folder.h"

namespace opmatrix {

namespace {
const char* kTorchCmake = "cmake_minimum_required(VERSION 3.18)\nproject(x)\nfind_package(Torch REQUIRED)\n";

// Writes `files` (name, text) into `dir`, then detects the build kind of what it holds.
BuildKind detect(const TempFolder& dir, std::initializer_list<std::pair<const char*, const char*>> files) {
  for (const auto& [name, text] : files) dir.write(name, text);
  return detect_build_kind(dir.path);
}
}  // namespace

TEST(BuildKind, SetupPyIsSetuptools) {
  TempFolder dir;
  const BuildKind b = detect(dir, {{"setup.py", "from setuptools import setup\nsetup(name='x')\n"}});
  EXPECT_EQ(b.kind, "setuptools");
  EXPECT_EQ(b.reason, "setup.py");
}

TEST(BuildKind, BothPreferSetuptoolsAndSaySo) {
  TempFolder dir;
  const BuildKind b = detect(dir, {{"setup.py", "setup()\n"}, {"CMakeLists.txt", kTorchCmake}});
  EXPECT_EQ(b.kind, "setuptools");
  EXPECT_NE(b.reason.find("CMakeLists.txt too, but setuptools is what users pip-install"), std::string::npos);
}

TEST(BuildKind, CmakeNeedsFindPackageTorch) {
  TempFolder dir;
  EXPECT_EQ(detect(dir, {{"CMakeLists.txt", "project(x)\n# find_package(Torch REQUIRED)\nFIND_PACKAGE( Torch)\n"}}).kind,
            "cmake");
  const BuildKind b =
      detect(dir, {{"CMakeLists.txt", "project(x)\n# find_package(Torch REQUIRED)\nfind_package(TorchVision)\n"}});
  EXPECT_EQ(b.kind, "");
  EXPECT_NE(b.error.find("its CMakeLists.txt does not call find_package(Torch)"), std::string::npos) << b.error;
}

TEST(BuildKind, PyprojectWithAnyBuildBackendIsBuiltAsPipBuildsIt) {
  // torchmcubes: scikit-build-core over a CMakeLists.txt that finds Torch; its users pip-install it.
  TempFolder dir;
  const char* scikit = "[build-system]\nrequires = [\"scikit-build-core\"]\nbuild-backend = \"scikit_build_core.build\"\n";
  const BuildKind s = detect(dir, {{"pyproject.toml", scikit}, {"CMakeLists.txt", kTorchCmake}});
  EXPECT_EQ(s.kind, "setuptools");
  EXPECT_EQ(s.reason, "pyproject.toml with the build backend scikit_build_core.build, no setup.py; CMakeLists.txt too, "
                      "but pip with its build backend is what users pip-install");
  TempFolder bare;
  const BuildKind none = detect(bare, {{"pyproject.toml", "[project]\nname = \"x\"\n"}});
  EXPECT_EQ(none.kind, "");
  EXPECT_NE(none.error.find("its pyproject.toml names no build-backend"), std::string::npos) << none.error;
}

TEST(BuildKind, NothingNamesWhatItLookedFor) {
  TempFolder dir;
  const BuildKind b = detect(dir, {});
  EXPECT_EQ(b.kind, "");
  EXPECT_EQ(b.error, "no PyTorch op library build in " + dir.path.string() +
                         ": looked for setup.py, pyproject.toml with a build backend, and CMakeLists.txt "
                         "calling find_package(Torch)");
}

}  // namespace opmatrix
