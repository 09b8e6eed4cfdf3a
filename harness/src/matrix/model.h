// The matrix after loading, validation and expansion: what every command works from.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "matrix/diagnostic.h"

namespace opmatrix {

struct Expectation {
  std::string check;   // one of known_checks()
  std::string op;      // empty = every op
  std::string arch;    // empty = every arch (only for check `arch`)
  std::string status;  // xfail or skip
  std::string reason;
  SourcePos pos;
  std::string subtest = {};  // empty = every sub-test (only for checks that report them: opcheck)
};

struct ImageSpec {
  // A built-in recipe (debian, debian-cuda, debian-cuda-toolkit, pypi; matrix/builtin_images.h):
  // `containerfile` is then relative to opmatrix's data root and `args` derived from the cell.
  std::string builtin;
  std::string containerfile;  // relative to the matrix file's folder; empty when `ref` is set
  std::vector<std::pair<std::string, std::string>> args;  // build args, in file order
  std::string ref;            // a prebuilt image reference instead of a Containerfile
};

enum class Runner { container, host };

// What a library promises for one op, where the measured default would be a false red
// (docs/matrix.md, "promises"): its backends, and a registration that needs a GPU or some CPUs.
struct OpPromise {
  std::vector<std::string> backends;  // subset of {cpu, cuda}; empty: the library's
  std::string registered = "always";  // always | with_gpu | on_some_cpus
  std::string arch;                   // with_gpu: the GPU generation it needs ("10.0"), "" = any
  std::string why;                    // the upstream fact, in words (required)
};

struct Promises {
  std::vector<std::string> backends;       // the library as a whole ([cpu]: a CPU variant); empty: inferred
  std::string why;                         // why, where `backends` is declared
  std::map<std::string, OpPromise> ops;    // per op

  const OpPromise* op(const std::string& name) const {
    auto it = ops.find(name);
    return it == ops.end() ? nullptr : &it->second;
  }
};

// Another op library to check instead of kernels/ + cases/ (docs/projects.md).
struct Project {
  // Where it comes from: exactly one of the three.
  std::string path;                // folder, relative to the matrix file's folder ("." = that folder)
  std::string pypi;                // "NAME==VERSION": its sdist from PyPI, built in the cell
  std::string wheel;               // "NAME==VERSION": a prebuilt wheel from PyPI, installed next to the cell's torch
  std::string kind;                // cmake | setuptools (a `pypi:` sdist: setuptools) | wheel
  std::string ns;                  // dispatcher namespace its ops register in ("" = none)
  std::vector<std::string> ops;    // ops to check (empty = every op in the namespace)
  std::vector<std::string> smoke;  // argv run in the cell after the build (empty = none)
  // Its own test command, run after the build against the installed library (empty = none);
  // `tests: PATH` in the matrix is python3 -m pytest -q PATH.
  std::vector<std::string> tests;
  std::vector<std::string> test_requires;  // what its tests need besides pytest and its metadata's
  // What its users install beside it that its metadata does not require (a documented
  // prerequisite, e.g. torch-scatter for torch-sparse): installed in every cell like its own.
  std::vector<std::string> requires_also;
  std::string import_module;       // Python module users import ("" = none): imported before judging
  std::string samples;             // Python file defining samples(device), relative to the matrix file's folder
  Promises promises;               // what it promises, per op and as a whole (docs/matrix.md)
  std::string name;                // a path project's own name (setup.py, pyproject.toml, CMake project()); "" unknown

  bool from_pypi() const { return !pypi.empty() || !wheel.empty(); }
  // How the project is named to a person: "boxops (examples/boxops)", "mylib" (path: .),
  // "pypi torch-scatter==2.1.2".
  std::string label() const;
  // What people call it: a release's distribution name (torch-scatter), else its own name, else its path.
  std::string short_name() const;
};

struct Cell {
  std::string id;
  SourcePos pos;
  std::string torch;
  std::string torchvision;
  std::string cuda;  // "12.4", or "none"
  Runner runner = Runner::container;
  ImageSpec image;
  std::vector<std::string> where;  // subset of {local, github, gpu}, in that order
  bool in_default = true;          // part of the default local run when `local` is in `where`
  std::vector<std::string> cuda_archs;
  std::vector<Expectation> expect;
  std::vector<std::pair<std::string, int>> timeouts;  // step -> seconds
  std::string notes;
  // A cell that exists to show how opmatrix diagnoses a broken environment (a CPU-only
  // torchvision beside a CUDA torch): what is broken. Reports keep it out of the table of our
  // ops and list it with the environments, its cause and fix.
  std::string diagnoses;
  std::optional<Project> project;  // unset: opmatrix's own kernels/ and cases/
  // The project's reference cell: its measured per-op kernels are the library's promise in its
  // other cells (default: the newest torch where it builds and loads; checks/load/reference_promises.h).
  bool reference = false;
  // A pair of the atlas (atlas/atlas_file.h): a library release installed in this runtime; only
  // the steps marked in_atlas run (checks/registry.h).
  bool atlas_pair = false;

  bool has_cuda() const { return cuda != "none"; }
  bool runs(const std::string& place) const;
};

struct Matrix {
  std::string file;
  int version = 1;
  std::vector<std::string> ops;
  std::vector<std::string> cuda_archs;
  std::vector<Cell> cells;

  const Cell* find(const std::string& id) const;
};

// From the check registry (checks/registry.h): the names `expect` and `timeouts` may use.
const std::vector<std::string>& known_checks();
const std::vector<std::string>& known_places();  // local, github, gpu
const std::vector<std::string>& known_steps();

}  // namespace opmatrix
