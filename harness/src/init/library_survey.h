// Everything `opmatrix init` learns about an op library folder, read from its files only
// (nothing is built, imported or run).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "init/build_kind.h"
#include "init/python_package.h"
#include "init/source_files.h"
#include "init/test_suite.h"

namespace opmatrix {

struct NamespaceOps {
  std::string ns;
  std::vector<std::string> ops;      // op names, each once, in the order found
  std::vector<std::string> schemas;  // every registration: its schema, or its bare name
  std::vector<std::string> files;    // where they are registered, relative to the folder
};

struct LibrarySurvey {
  std::filesystem::path dir;
  BuildKind build;                       // build.kind "": not an op library build; build.error says why
  std::vector<NamespaceOps> namespaces;  // the most ops first
  bool pybind11_module = false;
  std::string dist_name;                 // setuptools: the distribution's name, if written plainly
  ImportModule import;                   // setuptools only
  bool smoke_py = false;                 // a smoke.py beside the build files
  TestSuite tests;                       // its own test folder, if any
  std::size_t files_read = 0;
  bool truncated = false;
  int skipped_large = 0;
  int unread_defs = 0;                   // def(...) with a computed schema: ops init could not name
  std::vector<std::string> notes;        // anything else worth a comment in the file

  // The namespace the matrix checks: the one with the most ops.
  const NamespaceOps* main_namespace() const { return namespaces.empty() ? nullptr : &namespaces.front(); }
  // A PYBIND11_MODULE and no TORCH_LIBRARY: torch.ops knows none of its functions.
  bool pybind11_only() const { return pybind11_module && namespaces.empty(); }
};

LibrarySurvey survey_library(const std::filesystem::path& dir, const SourceLimits& limits = {});

}  // namespace opmatrix
