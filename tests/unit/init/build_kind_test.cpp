#include <gtest/gtest.h>

#include "init/build_kind.h"
#include "temp_folder.h"

namespace opmatrix {

namespace {
const char* kTorchCmake = "cmake_minimum_required(VERSION 3.18)\nproject(x)\nfind_package(Torch REQUIRED)\n";
}

TEST(BuildKind, SetupPyIsSetuptools) {
  TempFolder dir;
  dir.write("setup.py", "from setuptools import setup\nsetup(name='x')\n");
  const BuildKind b = detect_build_kind(dir.path);
  EXPECT_EQ(b.kind, "setuptools");
  EXPECT_EQ(b.reason, "setup.py");
}

TEST(BuildKind, BothPreferSetuptoolsAndSaySo) {
  TempFolder dir;
  dir.write("setup.py", "setup()\n");
  dir.write("CMakeLists.txt", kTorchCmake);
  const BuildKind b = detect_build_kind(dir.path);
  EXPECT_EQ(b.kind, "setuptools");
  EXPECT_NE(b.reason.find("CMakeLists.txt too, but setuptools is what users pip-install"), std::string::npos);
}

TEST(BuildKind, CmakeNeedsFindPackageTorch) {
  TempFolder dir;
  dir.write("CMakeLists.txt", "project(x)\n# find_package(Torch REQUIRED)\nFIND_PACKAGE( Torch)\n");
  EXPECT_EQ(detect_build_kind(dir.path).kind, "cmake");
  dir.write("CMakeLists.txt", "project(x)\n# find_package(Torch REQUIRED)\nfind_package(TorchVision)\n");
  const BuildKind b = detect_build_kind(dir.path);
  EXPECT_EQ(b.kind, "");
  EXPECT_NE(b.error.find("its CMakeLists.txt does not call find_package(Torch)"), std::string::npos) << b.error;
}

TEST(BuildKind, PyprojectCountsOnlyWithASetuptoolsBackend) {
  TempFolder dir;
  dir.write("pyproject.toml", "[build-system]\nrequires = [\"scikit-build-core\"]\nbuild-backend = \"scikit_build_core.build\"\n");
  EXPECT_EQ(detect_build_kind(dir.path).kind, "");
  dir.write("pyproject.toml", "[build-system]\nrequires = [\"setuptools\", \"torch\"]\nbuild-backend = \"setuptools.build_meta\"\n");
  const BuildKind b = detect_build_kind(dir.path);
  EXPECT_EQ(b.kind, "setuptools");
  EXPECT_FALSE(b.setup_py);
}

TEST(BuildKind, NothingNamesWhatItLookedFor) {
  TempFolder dir;
  const BuildKind b = detect_build_kind(dir.path);
  EXPECT_EQ(b.kind, "");
  EXPECT_EQ(b.error, "no PyTorch op library build in " + dir.path.string() +
                         ": looked for setup.py, pyproject.toml with a setuptools build backend, and CMakeLists.txt "
                         "calling find_package(Torch)");
}

}  // namespace opmatrix
