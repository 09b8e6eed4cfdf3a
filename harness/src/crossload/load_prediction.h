// The load matrix told without loading: from what a library needs (its NEEDED sonames and
// undefined dynamic symbols, with their versions) and what a torch runtime offers (the sonames
// and symbol versions of the libraries a process has after `import torch`, and the symbols
// torch's own libraries define), predict what `dlopen(RTLD_NOW)` will say. Both sides come
// from scripts/cell/abi_surface.py, each in its own cell, so on GitHub a build job and a runtime
// job can publish them apart and the prediction needs neither image.
#pragma once

#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace opmatrix {

struct LibraryImports {
  std::string library;
  std::vector<std::string> needed;                               // sonames
  std::vector<std::pair<std::string, std::string>> undefined;    // {name, version or ""}
  std::vector<std::string> runpath;                              // RUNPATH/RPATH folders ($ORIGIN left out)
};

struct RuntimeExports {
  std::set<std::string> sonames;                  // loaded, or found by name by the dynamic linker
  std::set<std::string> versions;                 // symbol versions defined (GLIBCXX_3.4.30, ...)
  std::unordered_set<std::string> symbols;        // Fnv64 hex of each symbol the loaded libraries define
  std::map<std::string, std::set<std::string>> folders;  // what a build's RUNPATH may name here: folder -> sonames
};

struct LoadPrediction {
  std::string outcome;  // loads | missing_library | undefined_symbol
  std::string reason;   // the first thing that decides it, in words
  std::vector<std::string> missing;  // sonames / versions / symbols (demangled), first 20
  std::size_t missing_count = 0;
};

// Throws std::runtime_error naming what is malformed.
std::vector<LibraryImports> imports_from_json(const nlohmann::json& report);
RuntimeExports exports_from_json(const nlohmann::json& report);

// The dynamic linker's order: a NEEDED soname that is neither loaded, nor found by name, nor in
// one of the build's RUNPATH folders here, or a symbol version no loaded library defines, stops
// the load first ("missing library"); then every unversioned symbol must be one a loaded library
// defines ("undefined symbol"). Versioned symbols are taken as served where their version is
// (the library that defines a version defines its symbols); Python's own (Py*, _Py*) are served
// by the interpreter.
LoadPrediction predict_load(const LibraryImports& build, const RuntimeExports& runtime);

// Whether a measured outcome is what the prediction said: loading is what is predicted, so a
// measured `not_registered` (it loaded) agrees with `loads`; a crash or timeout agrees with nothing.
bool prediction_agrees(const std::string& predicted, const std::string& measured);

nlohmann::json to_json(const LoadPrediction& p);

}  // namespace opmatrix
