// The Python side of a setuptools op library, read from setup.py / setup.cfg / pyproject.toml
// without running them (setup.py imports torch, and may refuse to run without a GPU): its
// distribution name, the packages it installs, its extension modules, and from those the
// module users import.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace opmatrix {

struct SetupFacts {
  std::string dist_name;                // setup(name=...), else setup.cfg's or pyproject.toml's; "" unknown
  std::vector<std::string> packages;    // top-level names of packages=[...]
  bool find_packages = false;           // packages=find_packages(...) / find_namespace_packages(...)
  std::string packages_root;            // find_packages(where) or package_dir={"": ROOT}; "" = the folder
  std::vector<std::string> extensions;  // CppExtension("name", ...) / CUDAExtension / Extension names
};

SetupFacts read_setup_facts(const std::string& setup_py, const std::string& setup_cfg, const std::string& pyproject);

struct ImportModule {
  std::string module;  // "" when none could be told
  std::string reason;  // how it was found, or why not
};

// A package folder (with __init__.py) that setup.py installs, preferring the one named like the
// distribution; for a pybind11-only library, its one extension module.
ImportModule find_import_module(const std::filesystem::path& dir, const SetupFacts& facts, bool pybind11_only);

}  // namespace opmatrix
