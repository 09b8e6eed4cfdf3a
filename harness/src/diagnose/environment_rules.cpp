// Failures that are the machine's or the cell image's, not the library's: a shared library or a
// build prerequisite the image lacks, a full disk.
#include <fmt/format.h>

#include "diagnose/step_rules.h"

namespace opmatrix::step_rules {

namespace {

// Something every cell image must provide for building a Python extension (docs/cell-contract.md),
// by the name the log's pattern captured; name nullptr: any other name.
struct Prerequisite {
  const char* name;
  const char* what;     // what the image lacks, in words
  const char* install;  // how an image of one's own gets it
  bool in_builtin_images = true;  // opmatrix's own Containerfiles install it (git: not yet)
};

// A log line that shows a prerequisite missing, and which one by its first group.
struct PrerequisiteSign {
  std::regex pattern;
  std::vector<Prerequisite> by_name;  // the first whose name is the group's (or nullptr) is the one
};

// Tried in this order over the whole log: the first sign found names the prerequisite.
const std::vector<PrerequisiteSign>& prerequisite_signs() {
  static const std::vector<PrerequisiteSign> signs = {
      // gcc: "…/python_headers.h:12:10: fatal error: Python.h: No such file or directory"
      // clang: "fatal error: 'Python.h' file not found"
      {std::regex(R"(fatal error: '?(Python\.h|pybind11/[^\s:']+)'?:? (?:No such file or directory|file not found))"),
       {{"Python.h", "Python's C headers (Python.h)",
         "python3-dev (Debian; for a venv, the python3-dev of the Python it was made from)"},
        {nullptr, "pybind11's C++ headers", "pybind11-dev (Debian; pip torch ships them in torch/include)"}}},
      // A stray dist-packages/setuptools folder without __init__.py imports as an empty namespace
      // package: "cannot import name 'find_packages' from 'setuptools' (unknown location)",
      // "module 'setuptools' has no attribute 'setup'".
      {std::regex(
           R"((cannot import name '\w+' from 'setuptools' \(unknown location\)|module 'setuptools' has no attribute '\w+'))"),
       {{nullptr, "setuptools: a setuptools folder without its code imports as an empty namespace package",
         "python3-setuptools (Debian) or `pip install setuptools`, and remove the stray setuptools "
         "folder from site-packages/dist-packages"}}},
      // "No module named 'setuptools'", "No module named 'setuptools.command'" (torch's
      // cpp_extension on an empty setuptools), "/usr/bin/python3: No module named pip".
      {std::regex(R"(No module named '?(setuptools|pybind11|wheel|pip)(\.[\w.]+)?(?:'|$|\s))"),
       {{"setuptools", "setuptools", "python3-setuptools (Debian) or `pip install setuptools`"},
        {"pybind11", "the pybind11 Python package", "python3-pybind11 (Debian) or `pip install pybind11`"},
        {"wheel", "the wheel package", "python3-wheel (Debian) or `pip install wheel`"},
        {nullptr, "pip", "python3-pip (Debian); in a venv made without pip, `python -m ensurepip`"}}},
      // A setup.py that runs git (flash-mla 1.0.0.dev0, quant-matmul 1.2.0: a submodule or a
      // version from `git`): "FileNotFoundError: [Errno 2] No such file or directory: 'git'".
      {std::regex(R"(No such file or directory: '(git)')"),
       {{nullptr, "git, which the project's build runs", "git (Debian: apt-get install git)", false}}},
      // Without the `wheel` package, setuptools < 70.1 has no bdist_wheel command.
      {std::regex(R"(invalid command 'bdist_wheel')"),
       {{nullptr, "the wheel package (setuptools before 70.1 has no bdist_wheel without it)",
         "python3-wheel (Debian) or `pip install wheel`"}}},
  };
  return signs;
}

// A prerequisite the image lacks (what, how), from the first line of the log that shows it.
bool missing_prerequisite(const std::string& log, Evidence& e) {
  for (const auto& sign : prerequisite_signs()) {
    if (!find_line(log, sign.pattern, e.line, e.m)) continue;
    for (const auto& p : sign.by_name)
      if (!p.name || e.m[1].str() == p.name) {
        e.what = p.what;
        e.how = p.install;
        e.in_builtin_images = p.in_builtin_images;
        return true;
      }
  }
  return false;
}

void explain_missing_shared_library(const StepFailure&, const Evidence& e, Diagnosis& d) {
  const bool driver = e.m[1].str() == "libcuda.so.1";
  d.kind = "missing_shared_library";
  d.summary = driver ? "the built programs do not start: they need libcuda.so.1, the NVIDIA driver, which this "
                       "machine does not have (this torch's CMake links the driver library into every program)"
                     : fmt::format("the built programs do not start: {} is not found", e.m[1].str());
  d.fix = driver ? "run the cell on a machine with the NVIDIA driver (runner gpu), or link CUDA::cuda_driver only "
                   "where it is used"
                 : "install the package that provides it, or fix the RPATH / LD_LIBRARY_PATH";
}

// pip in an image build that cannot reach the index it was told to use (a cell whose torch
// comes from download.pytorch.org, on a machine that reaches PyPI alone): pip retries, then says
// "No matching distribution found", which reads as if the release did not exist.
bool index_unreachable(const std::string& log, Evidence& e) {
  static const std::regex refused(R"(Failed to establish a new connection|Temporary failure in name resolution|)"
                                  R"(Network is unreachable|Connection refused)");
  static const std::regex index(R"(Looking in indexes: (\S+))");
  std::smatch m;
  if (!std::regex_search(log, m, refused)) return false;
  const std::string before = log.substr(0, static_cast<std::size_t>(m.position(0)));
  std::string url;
  for (std::sregex_iterator it(before.begin(), before.end(), index), end; it != end; ++it) url = (*it)[1].str();
  if (url.empty()) return false;
  e.what = url;
  e.line = trimmed(m.str(0));
  return true;
}

void explain_index_unreachable(const StepFailure& f, const Evidence& e, Diagnosis& d) {
  d.kind = "index_unreachable";
  d.summary = fmt::format("the {} step could not reach the package index {} (pip: {})", f.step, e.what, e.line);
  d.fix = fmt::format("this cell needs {}: run it where that index is reachable (its GitHub job), or point the "
                      "cell's index_url at a mirror of it",
                      e.what);
}

void explain_disk_full(const StepFailure& f, const Evidence&, Diagnosis& d) {
  d.kind = "disk_full";
  d.summary = fmt::format("the {} step ran out of disk space", f.step);
  d.fix = "free disk space (podman image prune, once `podman rm -f` has removed the working containers of "
          "interrupted builds that `podman ps -a --external` lists: they keep those builds' layers; remove old "
          "build trees under build/opmatrix/cells) and run the cell again";
}

void explain_missing_prerequisite(const StepFailure&, const Evidence& e, Diagnosis& d) {
  d.kind = "image_missing_prerequisite";
  d.summary = fmt::format("the cell image lacks {}{}: the image's fault, not the library's", e.what,
                          e.what.find(", which") == std::string::npos ? ", which building a Python extension needs" : "");
  d.fix = e.in_builtin_images
              ? fmt::format("rebuild the cell image with the current opmatrix Containerfiles, which provide it (an "
                            "edited Containerfile gets a new image tag: `opmatrix run --images-only --cell CELL` "
                            "builds it); in a Containerfile of your own, install {}",
                            e.how)
              : fmt::format("give the cell an image that has it: a Containerfile of your own (image: {{containerfile: "
                            "FILE}}, a copy of the built-in one) that installs {}; opmatrix's own images do not",
                            e.how);
  d.evidence = trimmed(e.line);
}

}  // namespace

const std::vector<StepRule>& environment_rules() {
  static const std::vector<StepRule> rules = {
      line_rule(R"(error while loading shared libraries: (\S+): cannot open)", explain_missing_shared_library),
      line_rule(R"([Nn]o space left on device)", explain_disk_full),  // strerror's, and podman's lower-case
      own_rule(index_unreachable, explain_index_unreachable),
      // Before compile errors (toolchain_rules): "fatal error: Python.h: No such file or
      // directory" is the image's fault, not a line of the library to fix.
      own_rule(missing_prerequisite, explain_missing_prerequisite),
  };
  return rules;
}

}  // namespace opmatrix::step_rules
