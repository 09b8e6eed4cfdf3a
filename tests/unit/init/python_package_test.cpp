#include <gtest/gtest.h>

#include "init/python_package.h"
#include "temp_folder.h"

namespace opmatrix {

TEST(SetupFacts, NamePackagesAndExtensionsFromTheSetupCall) {
  const SetupFacts f = read_setup_facts(R"src(
from setuptools import find_packages, setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension
NAME = "My-Lib"
def setup_helper(name="not this"):
    pass
ext = CUDAExtension(name="mylib._C", sources=["a.cu"])
extension = CppExtension
other = extension("mylib._cpu", ["b.cpp"])
generated = CppExtension(f"mylib._{suffix}", ["c.cpp"])
setup(
    name=NAME,
    packages=find_packages(where="src", exclude=["tests"]),
    package_dir={"": "src"},
    ext_modules=[ext, CppExtension("name_inside_a_list", [])],
)
)src", "", "");
  EXPECT_EQ(f.dist_name, "My-Lib");
  EXPECT_TRUE(f.find_packages);
  EXPECT_EQ(f.packages_root, "src");
  EXPECT_EQ(f.extensions, (std::vector<std::string>{"mylib._C", "mylib._cpu", "name_inside_a_list"}))
      << "an f-string name is not a name";
}

TEST(SetupFacts, LiteralPackagesAndNamesFromOtherFiles) {
  SetupFacts f = read_setup_facts("setup(packages=['gpugated', 'gpugated.ops'], name=computed())", "",
                                  "[project]\nname = \"gpugated\"\n");
  EXPECT_EQ(f.packages, std::vector<std::string>{"gpugated"});
  EXPECT_EQ(f.dist_name, "gpugated");
  f = read_setup_facts("setup()", "[metadata]\nname = from-cfg\n", "");
  EXPECT_EQ(f.dist_name, "from-cfg");
}

TEST(ImportModule, ThePackageNamedLikeTheDistribution) {
  TempFolder dir;
  dir.write("torch_scatter/__init__.py", "");
  dir.write("helpers/__init__.py", "");
  dir.write("tests/__init__.py", "");
  SetupFacts f;
  f.dist_name = "torch-scatter";
  f.find_packages = true;
  const ImportModule m = find_import_module(dir.path, f, false);
  EXPECT_EQ(m.module, "torch_scatter");
  EXPECT_EQ(m.reason, "package folder torch_scatter/, installed by setup.py and named like the distribution");
}

TEST(ImportModule, TheOnePackageOrTheOneExtensionOrNothing) {
  TempFolder dir;
  dir.write("src/gpugated/__init__.py", "");
  SetupFacts f;
  f.packages = {"gpugated"};
  f.packages_root = "src";
  EXPECT_EQ(find_import_module(dir.path, f, false).module, "gpugated");

  SetupFacts pybind;
  pybind.dist_name = "DetrStyleOps-dist";
  pybind.extensions = {"DetrStyleOps"};
  EXPECT_EQ(find_import_module(dir.path, pybind, true).module, "DetrStyleOps");
  const ImportModule none = find_import_module(dir.path, pybind, false);
  EXPECT_EQ(none.module, "") << "a dispatcher library's extension is loaded, not imported";
  EXPECT_EQ(none.reason, "no package folder with __init__.py that setup.py installs");
}

}  // namespace opmatrix
