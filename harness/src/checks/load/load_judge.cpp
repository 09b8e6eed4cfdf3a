#include "checks/load/load_judge.h"

#include <algorithm>
#include <initializer_list>
#include <map>

#include <optional>
#include <regex>

#include <map>

#include <fmt/format.h>

#include "checks/check_results.h"
#include "checks/load/system_prerequisites.h"
#include "diagnose/diagnose.h"
#include "util/cuda_arch.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

// A `load` result: one per built library (subtest "library": its dlopen) and one for the
// project's import (subtest "import"), so that an `expect` entry can name one of them: a wheel
// whose library has undefined symbols may still import (fbgemm_gpu logs the failure and goes on).
CheckResult load_result(const std::string& subtest, Status s, std::string message) {
  CheckResult c = make_check("", "load", "", s, std::move(message));
  c.subtest = subtest;
  return c;
}

std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// ", after its sibling libfoo.so (the package loads it first)" where the library needed the
// package's own libraries loaded before it (pip's layout, not the loader's, puts them together).
std::string loaded_after(const nlohmann::json& lib) {
  std::vector<std::string> names;
  for (const auto& p : lib.value("loaded_after", std::vector<std::string>{})) names.push_back(file_name(p));
  if (names.empty()) return "";
  return fmt::format(", after its sibling{} {} (the package loads {} first)", names.size() > 1 ? "s" : "",
                     fmt::join(names, ", "), names.size() > 1 ? "them" : "it");
}

// Libraries that come with the NVIDIA driver, not with torch, a toolkit or a wheel.
const char* const kDriverLibraries[] = {"libcuda.so.1", "libnvidia-ml.so.1", "libnvcuvid.so.1",
                                        "libnvidia-encode.so.1", "libnvidia-opticalflow.so.1"};

bool driver_library(const std::string& soname) {
  return std::find(std::begin(kDriverLibraries), std::end(kDriverLibraries), soname) != std::end(kDriverLibraries);
}

// Where the package's import fails for want of the NVIDIA driver beside a CUDA torch, or of a
// system library its users install (nixl-cu13 1.5.1's extension links libcuda.so.1), the library
// it lacks: what the import would go on without is not known here. Empty where the import works or
// fails otherwise; beside a CPU-only torch the driver is no excuse (a CUDA-only library is red there).
struct ImportLacks {
  std::string soname;  // the library it lacks, where that is its want
  std::string what;    // said as "it fails for want of WHAT"; empty where the import works or fails otherwise
};

ImportLacks import_lacks_here(const nlohmann::json& report) {
  if (!report.contains("import") || !report["import"].is_object() || json_flag(report["import"], "ok")) return {};
  static const std::regex cannot_open(R"(([A-Za-z0-9_.+-]+\.so[0-9.]*): cannot open shared object file)");
  const std::string error = json_text(report["import"], "error");
  std::smatch m;
  // Or of its package's own module built for this torch, where it ships that module for other
  // torches only (nixl-cu13 1.5.1 beside torch 2.15: `.nixl_ep_cpp_torch215`): that red is judged
  // at the library (no_build_for_this_torch); what the import would go on without is not known.
  static const std::regex no_module(R"(No module named '[\w.]*?\.(\w+)')");
  if (std::regex_search(error, m, no_module) && report.contains("libraries")) {
    const std::string leaf = m[1];
    for (const auto& lib : report["libraries"]) {
      const std::string stem = json_text(lib, "build_of");
      if (!json_text(lib, "for_torch").empty() && !stem.empty() && leaf.rfind(stem, 0) == 0)
        return {"", fmt::format("its build of {} for this torch, which it does not ship", stem)};
    }
  }
  if (!std::regex_search(error, m, cannot_open)) return {};
  const std::string soname = m[1];
  const bool cuda_torch = !json_text(report, "torch_cuda").empty();
  if ((driver_library(soname) && cuda_torch) || !system_prerequisites_of({soname}).empty())
    return {soname, soname + ", which this machine lacks"};
  return {};
}

// The package's optional backends (load_library.py: a library that lacks only system libraries
// and that the package's import goes on without), named once: a limit, not a break. The NVIDIA
// driver's libraries among what they lack are said as such: no package installs them, a machine
// with a GPU has them (pylibwholegraph 26.10's wholememory_binding.abi3.so: libcuda.so.1,
// libnvidia-ml.so.1).
CheckResult optional_backends_result(const std::vector<const nlohmann::json*>& libs, const nlohmann::json& report,
                                     const ImportLacks& import_lacks, const std::string& repro) {
  std::vector<std::string> names, needs, driver, there;
  const auto add = [](std::vector<std::string>& into, const std::string& m) {
    if (std::find(into.begin(), into.end(), m) == into.end()) into.push_back(m);
  };
  for (const nlohmann::json* lib : libs) {
    add(names, file_name(json_text(*lib, "path")));  // a library shipped at two paths, named once
    // A library it needs that is there (its package's or a requirement's: libwholegraph-cu12's
    // libwholegraph.so) and does not load: what that one lacks is said in its place.
    const nlohmann::json through = lib->value("missing_through", nlohmann::json::object());
    for (const auto& m : lib->value("missing_libraries", std::vector<std::string>{})) {
      if (through.contains(m)) {
        add(there, m);
        for (const auto& n : through[m].value("missing", std::vector<std::string>{})) add(driver_library(n) ? driver : needs, n);
      } else {
        add(driver_library(m) ? driver : needs, m);
      }
    }
  }
  const std::string module = report.contains("import") ? json_text(report["import"], "module") : "";
  std::string lacks = there.empty() ? "" : fmt::format("{} (installed, its package's or a requirement's, which {} not load "
                                                        "for what follows)",
                                                        fmt::join(there, ", "), there.size() > 1 ? "do" : "does");
  if (!needs.empty())
    lacks += fmt::format("{}{}: not installed here (system libraries)", lacks.empty() ? "" : "; ", fmt::join(needs, ", "));
  if (!driver.empty())
    lacks += fmt::format("{}the NVIDIA driver's {}, which only a machine with a GPU and its driver has",
                         lacks.empty() ? "" : "; and ", fmt::join(driver, ", "));
  const std::string them = names.size() > 1 ? "them" : "it";
  CheckResult c = load_result(
      "library", Status::skip,
      fmt::format("its optional backend{} {} need{} {}; {}", names.size() > 1 ? "s" : "", fmt::join(names, ", "),
                  names.size() > 1 ? "" : "s", lacks,
                  import_lacks.what.empty()
                      ? fmt::format("optional — import {} works without {}", module, them)
                      : fmt::format("whether import {} needs {} is not known here: it fails for want of {}, and "
                                    "nothing of the package needs {}",
                                    module, them, import_lacks.what, them)));
  std::string fix = needs.empty() ? "" : fmt::format("install the system package that provides {} where that backend is "
                                                     "used", fmt::join(needs, ", "));
  if (!driver.empty()) fix += fmt::format("{}run it on a machine with a GPU and its driver", fix.empty() ? "" : "; ");
  c.diagnosis = make_diagnosis("optional_backend_unavailable", c.message, fix, repro);
  return c;
}

// A library that does not load where the package's import puts Python code in its place
// (load_library.py's "python_fallback": torchopt 0.7.3's _C, built for torch 2.1, beside a later
// torch; its `except ImportError:` imports the same names from torchopt.accelerated_op._src): its
// failure stays said, as a limit of this torch: the package works, without what the library brings.
CheckResult with_python_fallback(CheckResult c, const nlohmann::json& lib, const nlohmann::json& report) {
  const nlohmann::json& fb = lib["python_fallback"];
  const std::string module = report.contains("import") ? json_text(report["import"], "module") : "";
  const auto names = fb.value("names", std::vector<std::string>{});
  c.status = Status::skip;
  c.message += fmt::format(" — import {} works without it: where {} does not load, {} imports {} from {} instead",
                           module, json_text(fb, "module"), json_text(fb, "site"), fmt::join(names, ", "),
                           json_text(fb, "fallback"));
  Diagnosis was = c.diagnosis ? *c.diagnosis : Diagnosis{};
  c.diagnosis = make_diagnosis(kPythonFallback, c.message,
                               was.fix.empty() ? "install the release built for this torch to get its compiled code"
                                               : was.fix,
                               was.repro, was.evidence);
  return c;
}


// A CUDA runtime library of another major version than the torch's CUDA among what a library
// lacks (libcudart.so.12 where torch has CUDA 13.2): the CUDA it was built for.
struct OtherCuda {
  std::string soname, major;
};
std::optional<OtherCuda> other_cuda_runtime(const nlohmann::json& lib, const std::string& torch_cuda) {
  static const std::regex cuda(
      R"(^lib(?:cudart|cublas|cublasLt|cusparse|cufft|curand|cusolver|nvrtc|nvJitLink)\.so\.(\d+))");
  if (torch_cuda.empty() || !lib.contains("missing_libraries")) return std::nullopt;
  const std::string here = torch_cuda.substr(0, torch_cuda.find('.'));
  for (const auto& m : lib["missing_libraries"]) {
    std::smatch v;
    const std::string name = m.is_string() ? m.get<std::string>() : "";
    if (std::regex_search(name, v, cuda) && v[1].str() != here) return OtherCuda{name, v[1].str()};
  }
  return std::nullopt;
}

}  // namespace

namespace {

// Does it NEED a library of its own package that is there and does not load?
bool needs_failing_sibling(const nlohmann::json& lib, const std::vector<std::string>& siblings,
                           const std::vector<std::string>& loaded_siblings) {
  if (json_text(lib, "error_kind") != "missing_library") return false;
  const auto missing = lib.value("missing_libraries", std::vector<std::string>{});
  return std::any_of(missing.begin(), missing.end(), [&](const std::string& m) {
    return std::find(siblings.begin(), siblings.end(), m) != siblings.end() &&
           std::find(loaded_siblings.begin(), loaded_siblings.end(), m) == loaded_siblings.end();
  });
}

}  // namespace

std::string load_failure_summary(const nlohmann::json& lib, const std::vector<std::string>& siblings,
                                 const std::vector<std::string>& loaded_siblings) {
  const std::string kind = json_text(lib, "error_kind");
  if (kind == "undefined_symbol" && lib.contains("undefined") && !lib["undefined"].empty()) {
    const auto& first = lib["undefined"][0];
    const int count = lib.value("undefined_count", static_cast<int>(lib["undefined"].size()));
    const std::string symbols =
        fmt::format("undefined symbol: {}{}", json_text(first, "demangled").empty() ? json_text(first, "symbol") : json_text(first, "demangled"),
                    count > 1 ? fmt::format(" (+{} more)", count - 1) : "");
    // A library of its package it needs does not load: that failure comes first (IPEX's _C.so
    // lacks InitIpexBindings, its libintel-ext-pt-python.so's, which does not load here).
    const auto needs = lib.value("needs_failing", std::vector<std::string>{});
    return needs.empty() ? symbols
                         : fmt::format("needs {} (its package's own, which does not load here), and so: {}",
                                       fmt::join(needs, ", "), symbols);
  }
  if (kind == "missing_library" && lib.contains("missing_libraries") && !lib["missing_libraries"].empty()) {
    // A library of the package itself is there: it is "missing" because it does not load.
    std::vector<std::string> own, found, absent, through;
    const nlohmann::json there = lib.value("missing_through", nlohmann::json::object());
    for (const auto& m : lib["missing_libraries"].get<std::vector<std::string>>()) {
      const bool loads = std::find(loaded_siblings.begin(), loaded_siblings.end(), m) != loaded_siblings.end();
      const bool own_library = std::find(siblings.begin(), siblings.end(), m) != siblings.end();
      if (!loads && !own_library && there.contains(m) && there[m].is_object()) {
        // There, in a requirement, and not loading: what it lacks is the cause.
        const auto lacks = there[m].value("missing", std::vector<std::string>{});
        through.push_back(fmt::format("{} (there, at {}, but {})", m, json_text(there[m], "path"),
                                      lacks.empty() ? std::string("it does not load either")
                                                    : fmt::format("it needs {}, not in this runtime",
                                                                  fmt::join(lacks, ", "))));
        continue;
      }
      (loads ? found : own_library ? own : absent).push_back(m);
    }
    std::vector<std::string> parts;
    if (!absent.empty()) parts.push_back(fmt::format("{} (not in this runtime)", fmt::join(absent, ", ")));
    for (const auto& t : through) parts.push_back(t);
    if (!own.empty())
      parts.push_back(fmt::format("{} (its package's own, which does not load here)", fmt::join(own, ", ")));
    if (!found.empty())
      parts.push_back(fmt::format("{} (its package's own, which loads, but which this library does not find by "
                                  "itself: the package must load it first)",
                                  fmt::join(found, ", ")));
    return fmt::format("needs {}", fmt::join(parts, "; "));
  }
  return json_text(lib, "error").empty() ? "does not load" : json_text(lib, "error");
}

// A build of a library the package has one of per runtime: its name, or, where every build has
// one name, its path from its torch folder (load_library.py's "build_label": torch-2.6/lib/…).
std::string build_name(const nlohmann::json& lib) {
  const std::string label = json_text(lib, "build_label");
  return label.empty() ? file_name(json_text(lib, "path")) : label;
}

// A package's builds of one library for other runtimes (load_library.py's "variant_of":
// bitsandbytes' libbitsandbytes_cuda121.so beside the _cpu.so its import loaded, auto-round-lib's
// XPU extension beside its CPU one), named once: by design, neither a break nor a limit.
CheckResult runtime_variants_result(const std::vector<const nlohmann::json*>& libs) {
  std::vector<std::string> names;
  for (const nlohmann::json* lib : libs) names.push_back(build_name(*lib));
  // Builds per version of a system library (load_library.py's mark_system_library_builds:
  // torchcodec's _core4 ... _core8 beside the one fitting the FFmpeg installed) lack only that
  // library's other versions (beside their own siblings of that version): said as such.
  std::vector<std::string> lacked;
  for (const nlohmann::json* lib : libs)
    for (const auto& m : lib->value("missing_libraries", std::vector<std::string>{}))
      if (!system_prerequisites_of({m}).empty() && std::find(lacked.begin(), lacked.end(), m) == lacked.end())
        lacked.push_back(m);
  if (const auto needs = system_prerequisites_of(lacked); needs.size() == 1) {
    return load_result("library", Status::skip,
                       fmt::format("{} build{} of its library for other versions of {} ({}, not installed here), "
                                   "unused here: {} — {} is the one for the {} installed",
                                   names.size(), names.size() > 1 ? "s" : "", needs.front().prerequisite->name,
                                   fmt::join(needs.front().sonames, ", "), fmt::join(names, ", "),
                                   json_text(*libs.front(), "variant_of"), needs.front().prerequisite->name));
  }
  return load_result("library", Status::skip,
                     fmt::format("{} build{} of its library for other runtimes (another device, CUDA, ROCm, "
                                 "torch version or std::string ABI), unused here: {} — {} is the one for this runtime",
                                 names.size(), names.size() > 1 ? "s" : "", fmt::join(names, ", "),
                                 json_text(*libs.front(), "variant_of")));
}

// A refusal in the package's words, its sentence that names the torch it wants first: the
// headline a table shows is cut at about 110 characters, and torchao 0.18.0's version comes
// second ("Skipping import of cpp extensions due to incompatible torch version. Please upgrade to
// torch >= 2.11.0 (found 2.6.0+debian).").
std::string refusal_quote(const std::string& line) {
  static const std::regex version(R"(\d+\.(\d+|\*))");
  std::vector<std::string> sentences;
  for (std::size_t start = 0; start < line.size();) {
    // A sentence ends at ". ", not inside a version ("2.11.0", "2.8.*"), nor at "ERROR! " (IPEX).
    std::size_t end = start;
    while (end < line.size() && !(line[end] == '.' && (end + 1 == line.size() || line[end + 1] == ' ')))
      ++end;
    end = std::min(end + 1, line.size());
    std::string s = line.substr(start, end - start);
    s.erase(0, s.find_first_not_of(' '));
    if (!s.empty()) sentences.push_back(s);
    start = end;
  }
  const auto named = std::find_if(sentences.begin(), sentences.end(),
                                  [](const std::string& s) { return std::regex_search(s, version); });
  if (named == sentences.begin() || named == sentences.end()) return fmt::format("\"{}\"", line);
  std::vector<std::string> before(sentences.begin(), named);
  return fmt::format("\"{}\" (after \"{}\")", *named, fmt::join(before, " "));
}

// A library whose missing symbols include versioned ones of the system's C or C++ runtime
// (load_library.py's "system_runtime": std::ios_base_library_init@GLIBCXX_3.4.32 in a bookworm
// image): the system is older than the one the library was built for, whatever else it lacks.
Diagnosis system_runtime_diagnosis(const nlohmann::json& lib, const std::string& torch, const std::string& repro) {
  const auto& sys = lib["system_runtime"];
  const auto versions = sys.value("versions", std::vector<std::string>{});
  const auto symbols = sys.value("symbols", std::vector<std::string>{});
  const int count = sys.value("count", static_cast<int>(symbols.size()));
  const int others = lib.value("undefined_count", count) - count;
  std::string summary =
      symbols.empty()
          ? fmt::format("needs a newer C/C++ runtime than this system has (version {} not found)", fmt::join(versions, ", "))
          : fmt::format("needs a newer C/C++ runtime than this system has ({} symbol{} of {}, e.g. {})", count,
                        count == 1 ? "" : "s", fmt::join(versions, ", "), symbols.front());
  std::vector<std::string> all;
  for (const auto& s : lib["undefined"]) all.push_back(json_text(s, "demangled"));
  if (others > 0 && static_cast<std::size_t>(count) < all.size())
    summary += fmt::format(", and {} symbol{} this torch {} does not define, e.g. {}", others, others == 1 ? "" : "s",
                           torch, all[static_cast<std::size_t>(count)]);
  return make_diagnosis(others > 0 ? "undefined_symbol" : "system_runtime_too_old", summary,
                        fmt::format("run it where the system's libstdc++/glibc has {} (a newer distribution), or install "
                                    "a build of the library for this system{}",
                                    fmt::join(versions, ", "),
                                    others > 0 ? "; the symbols torch lacks need a build of it for this torch too" : ""),
                        repro, fmt::format("{}", fmt::join(all, "\n")));
}

// Whether every prerequisite of NEEDS is another framework (TensorFlow), none a system library its
// users install themselves.
bool other_frameworks_only(const std::vector<PrerequisiteNeed>& needs) {
  return !needs.empty() && std::all_of(needs.begin(), needs.end(), [](const PrerequisiteNeed& n) {
    return std::string(n.prerequisite->why) != kSystemLibrary;
  });
}

// A library that lacks only another framework's or device's libraries (deepmd-kit's
// libdeepmd_op.so, TensorFlow's; vllm-xpu-kernels' libraries, torch's XPU build's): named as such
// (needs_system_prerequisite), whether or not the import works without it, never as an optional
// backend of its torch side, which would limit the torch side's verdict for a part of the package
// that torch's users never load here. What it lacks counts through the libraries it needs that
// are there and do not load (load_library.py's "missing_through": vllm-xpu-kernels'
// _vllm_fa2_C.abi3.so needs its package's libattn_kernels_xe_2.so, which lacks them too).
bool for_another_framework(const nlohmann::json& lib) {
  const nlohmann::json through = lib.value("missing_through", nlohmann::json::object());
  std::vector<std::string> lacked;
  for (const auto& m : lib.value("missing_libraries", std::vector<std::string>{})) {
    if (!through.contains(m)) {
      lacked.push_back(m);
      continue;
    }
    for (const auto& n : through[m].value("missing", std::vector<std::string>{}))
      if (std::find(lacked.begin(), lacked.end(), n) == lacked.end()) lacked.push_back(n);
  }
  return other_frameworks_only(system_prerequisites_of(lacked));
}

// A plugin of another program in the package (load_library.py's "host_plugin": deepmd-kit's
// libdeepmd_lmpplugin.so, LAMMPS's): no torch library, lacking only symbols that none of its
// libraries defines and none of them torch's, which the program that loads it provides; the
// package's import does not load it. Nothing in it depends on the torch beside it.
CheckResult host_plugin_result(const nlohmann::json& lib, const std::string& name, const std::string& repro) {
  const auto prefixes = lib.value("undefined_prefixes", std::vector<std::string>{});
  std::vector<std::string> shown;
  for (const auto& p : prefixes) shown.push_back(p.back() == '_' ? p + "…" : p + "::…");
  CheckResult c = load_result(
      "library", Status::skip,
      fmt::format("{} not checked here: a plugin of another program, not a torch library: it needs none of torch's "
                  "libraries and lacks {} symbol(s) that no library it needs defines, none of them torch's{}, which "
                  "the program that loads it provides; the package's import does not load it",
                  name, lib.value("undefined_count", 0),
                  shown.empty() ? "" : fmt::format(" ({})", fmt::join(shown, ", "))));
  c.diagnosis = make_diagnosis(kHostPlugin, c.message,
                               "nothing to fix for this torch: the program it plugs into loads it, beside its own "
                               "symbols",
                               repro, json_text(lib, "error"));
  return c;
}

// A library the package builds once per torch version (load_library.py's "build_of", "for_torch":
// dgl 2.1.0's libgraphbolt_pytorch_2.0.0.so ... _2.2.1.so) with no build for this torch: one red
// naming the torches it has builds for, not one per build.
CheckResult no_build_for_this_torch(const std::string& stem, const std::vector<const nlohmann::json*>& builds,
                                    const nlohmann::json& report, const std::string& repro) {
  // Every torch it has a build for ("builds_for": those that load here too), else those here.
  std::vector<std::string> versions = builds.front()->value("builds_for", std::vector<std::string>{});
  for (const nlohmann::json* lib : builds)
    if (const std::string v = json_text(*lib, "for_torch"); std::find(versions.begin(), versions.end(), v) == versions.end())
      versions.push_back(v);
  const std::string first = build_name(*builds.front());
  const std::string names = builds.size() == 1 ? first : fmt::format("{} … {}", first, build_name(*builds.back()));
  const std::string torch = json_text(report, "torch");
  // Where it has none, its import may compile one (torchpipe 0.2.25): the compiler's first error is
  // why that did not help either, and the evidence.
  std::vector<std::string> compile_errors;
  if (report.contains("import") && report["import"].is_object())
    compile_errors = report["import"].value("compile_errors", std::vector<std::string>{});
  CheckResult c = load_result(
      "library", Status::fail,
      fmt::format("{}: no build for torch {}: the package has builds of it for torch {} only ({}){}", stem,
                  torch.substr(0, torch.find('+')), fmt::join(versions, ", "), names,
                  compile_errors.empty()
                      ? ""
                      : fmt::format("; its import compiles one for this torch, and the compile fails: {}",
                                    compile_errors.front().substr(compile_errors.front().rfind("error: ")))));
  c.diagnosis = make_diagnosis("no_build_for_this_torch", c.message,
                               fmt::format("install the release made for this torch, or a torch it has a build for ({})",
                                           fmt::join(versions, ", ")),
                               repro,
                               compile_errors.empty() ? json_text(*builds.front(), "error")
                                                      : fmt::format("{}", fmt::join(compile_errors, "\n")));
  if (!report.contains("import") || !report["import"].is_object()) return c;
  const nlohmann::json& import = report["import"];
  const std::string module = json_text(import, "module");
  const bool unused = std::all_of(builds.begin(), builds.end(),
                                  [](const nlohmann::json* lib) { return json_flag(*lib, "unused_by_import"); });
  if (json_flag(import, "ok") && !import.contains("declined") && unused && compile_errors.empty()) {
    // Its import worked and mapped none of them: what it would need one for is not seen here.
    c.status = Status::skip;
    c.message += fmt::format("; import {} works without one, loading none of them: what else would load one is "
                             "not checked here",
                             module);
    c.diagnosis->kind = kNoBuildUnusedByImport;
    c.diagnosis->summary = c.message;
    c.diagnosis->fix = fmt::format("nothing to fix for its import; for what needs {}: {}", stem, c.diagnosis->fix);
  } else if (!json_flag(import, "ok") && json_text(import, "error").find(stem) == std::string::npos) {
    // Its import failed first, for a cause that is not this library (torch-c-dlpack-ext 0.1.5
    // beside torch 2.15: `packaging` missing; with it, it needs no build there): whether the
    // import needs one is not known, and the import's red is the pair's.
    c.status = Status::skip;
    c.message += fmt::format("; whether import {} needs one is not known here: it fails first, for another cause",
                             module);
    c.diagnosis.reset();
  }
  return c;
}

// load_library.py's "backend_autoload": torch (2.5 on) runs each installed package's
// `torch.backends` entry point at `import torch`, and one that fails stops the import itself
// (torch_npu 2.14.0 without Ascend's CANN: libhccl.so). A finding of the package: not the
// infrastructure's error, and nothing else of it can run here.
CheckResult breaks_import_torch(const nlohmann::json& autoload, const std::string& repro) {
  const std::string entry = json_text(autoload, "entry_point"), cause = json_text(autoload, "cause");
  // The entry point fails for want of its device runtime's libraries, which its users install
  // themselves with the device (torch-npu 2.14.0: Ascend CANN's libhccl.so): not checked here.
  static const std::regex cannot_open(R"(([\w.+-]+\.so[.\d]*): cannot open shared object file)");
  // Or in the package's own words (torch-rbln 0.12.0: "FileNotFoundError: Could not find
  // librbln.so. No rebel-compiler distribution is installed …", Rebellions' SDK, on no public index).
  static const std::regex could_not_find(R"((?:[Cc]ould not (?:find|locate|load)|[Cc]annot find) ([\w+-]+(?:\.[\w+-]+)*?\.so(?:\.\d+)*))");
  // Not checked: the entry point needs NEEDS (a library and whose it is), which this runtime has not.
  const auto not_checked = [&](const std::string& needs, const std::string& where_it_runs) {
    CheckResult c = load_result("import", Status::skip,
                                fmt::format("not checked here: installing it makes `import torch` run its "
                                            "device-backend entry point '{}' (torch.backends), which needs {} and this "
                                            "runtime has not; without it `import torch` fails ({})",
                                            entry, needs, cause));
    c.diagnosis = make_diagnosis("needs_system_library", c.message,
                                 fmt::format("where it runs: {}; elsewhere set TORCH_DEVICE_BACKEND_AUTOLOAD=0",
                                             where_it_runs),
                                 repro, cause);
    return c;
  };
  std::smatch m;
  if (std::regex_search(cause, m, cannot_open)) {
    if (const auto needs = system_prerequisites_of({m[1].str()}); !needs.empty()) {
      const SystemPrerequisite* p = needs.front().prerequisite;
      return not_checked(fmt::format("{}'s {}, a system library its users install themselves (pip brings none)",
                                     p->name, m[1].str()),
                         p->install);
    }
  } else if (std::regex_search(cause, m, could_not_find)) {
    // A device runtime's library the package looks for itself, and says it did not find: the
    // vendor's SDK, which its users install with the device; nothing of the package runs without it.
    return not_checked(fmt::format("{}, a library of its device's runtime that pip does not bring", m[1].str()),
                       fmt::format("install its device's runtime, which provides {} (the package's own words say how)",
                                   m[1].str()));
  }
  CheckResult c = load_result("import", Status::fail,
                              fmt::format("installing it breaks `import torch`: torch runs its device-backend "
                                          "entry point '{}' (torch.backends) at import, and it fails here{}",
                                          entry, cause.empty() ? "" : ": " + cause));
  c.diagnosis = make_diagnosis("breaks_import_torch", c.message,
                               fmt::format("where its device runtime is missing, set TORCH_DEVICE_BACKEND_AUTOLOAD=0 "
                                           "(or install it only where that runtime is); for its maintainers: the "
                                           "entry point '{}' should return quietly when the device runtime is absent",
                                           entry),
                               repro, cause);
  return c;
}

// A library its package loads only as a failing sibling's dependency: alone it lacks symbols that
// sibling defines (which NEEDs it) and none of torch's (load_library.py's
// mark_dependencies_of_failing: torch-npu's libnpu_profiler.so, whose c10_npu::… libtorch_npu.so
// defines). Its fate is that sibling's.
bool follows_failing_needer(const nlohmann::json& lib, const std::string& needer = "") {
  const auto needers = lib.value("dependency_of_failing", std::vector<std::string>{});
  return json_text(lib, "error_kind") == "undefined_symbol" && !lib.contains("system_runtime") &&
         lib.value("torch_undefined_count", 1) == 0 && !needers.empty() &&
         (needer.empty() || std::find(needers.begin(), needers.end(), needer) != needers.end());
}

// A library that lacks only a system library its users install themselves (FFmpeg, for
// torchcodec: checks/load/system_prerequisites.h), beside its package's own libraries that do not
// load for the same want: not checked here, the prerequisite named; nullopt for any other failure.
std::optional<CheckResult> needs_system_prerequisite(const nlohmann::json& lib, const std::string& name,
                                                     const std::vector<std::string>& siblings,
                                                     const nlohmann::json& libraries, const std::string& repro,
                                                     int depth = 0) {
  if (json_text(lib, "error_kind") != "missing_library") return std::nullopt;
  // What it lacks outside its package, and the package's own libraries it lacks.
  auto split = [&](const nlohmann::json& l, std::vector<std::string>& own) {
    std::vector<std::string> absent;
    for (const auto& m : l.value("missing_libraries", std::vector<std::string>{}))
      (std::find(siblings.begin(), siblings.end(), m) == siblings.end() ? absent : own).push_back(m);
    return absent;
  };
  std::vector<std::string> own;
  std::vector<std::string> absent = split(lib, own);
  std::string through;
  // Its package's own libraries it lacks must each lack nothing but such a system library too
  // (torchaudio's _torchaudio_sox.so needs libtorchaudio_sox.so, which needs SoX's libsox.so), in
  // turn through theirs (torch-npu's _C.so needs libtorch_npu.so, which needs CANN and its
  // libtensorpipe.so, which needs CANN); one that loads, or that lacks alone only what this one
  // defines, is no obstacle; a sibling that fails otherwise (undefined symbols) keeps the red.
  std::vector<std::string> theirs_absent;
  for (const auto& sibling : own) {
    const auto it = std::find_if(libraries.begin(), libraries.end(), [&](const nlohmann::json& l) {
      return file_name(json_text(l, "path")) == sibling;
    });
    if (it != libraries.end() && (it->value("loaded", false) || follows_failing_needer(*it, name))) continue;
    std::vector<std::string> theirs;
    const auto sibling_absent = it == libraries.end() || json_text(*it, "error_kind") != "missing_library"
                                    ? std::vector<std::string>{}
                                    : split(*it, theirs);
    if (sibling_absent.empty()) return std::nullopt;
    if (!theirs.empty() &&
        (depth >= 4 || !needs_system_prerequisite(*it, sibling, siblings, libraries, repro, depth + 1)))
      return std::nullopt;
    theirs_absent.insert(theirs_absent.end(), sibling_absent.begin(), sibling_absent.end());
  }
  if (absent.empty() && !own.empty()) {
    absent = theirs_absent;
    through = fmt::format(" through its package's {}", fmt::join(own, ", "));
  } else if (!theirs_absent.empty()) {
    std::vector<std::string> all = absent;
    all.insert(all.end(), theirs_absent.begin(), theirs_absent.end());
    if (system_prerequisites_of(all).empty()) return std::nullopt;
  }
  const std::vector<PrerequisiteNeed> needs = system_prerequisites_of(absent);
  if (needs.empty()) return std::nullopt;
  std::vector<std::string> what, whys, installs;
  for (const auto& n : needs) {
    what.push_back(fmt::format("{}'s{} ({})", n.prerequisite->name, what.empty() ? " libraries" : "",
                               fmt::join(n.sonames, ", ")));
    const std::string why = needs.size() > 1 && n.prerequisite->why == std::string(kSystemLibrary)
                                ? "system libraries its users install themselves (pip brings none), and this runtime "
                                  "has not them"
                                : n.prerequisite->why;
    if (std::find(whys.begin(), whys.end(), why) == whys.end()) whys.push_back(why);
    installs.push_back(n.prerequisite->install);
  }
  // The loader's other versions of what it lacks (sid's FFmpeg: libavutil.so.61 where it needs
  // .60): the system library is installed, in a version it was not built for.
  std::vector<std::string> instead;
  if (lib.contains("other_versions") && lib["other_versions"].is_object())
    for (const auto& soname : absent)
      if (lib["other_versions"].contains(soname))
        for (const auto& other : lib["other_versions"][soname])
          if (other.is_string() && std::find(instead.begin(), instead.end(), other.get<std::string>()) == instead.end())
            instead.push_back(other.get<std::string>());
  CheckResult c = load_result("library", Status::skip,
                              fmt::format("{} not checked here: it needs {}{}, {}{}", name, fmt::join(what, ", "), through,
                                          fmt::join(whys, "; "),
                                          instead.empty() ? "" : fmt::format(" (it has {})", fmt::join(instead, ", "))));
  // Another framework's library (TensorFlow's op library) is no part of the torch side: the torch
  // side's verdict is judged by its own libraries, neither limited nor left unjudged by it.
  c.diagnosis = make_diagnosis(other_frameworks_only(needs) ? kAnotherFrameworksLibrary : "needs_system_library",
                               c.message,
                               fmt::format("where it runs: {}", fmt::join(installs, "; ")), repro, json_text(lib, "error"));
  return c;
}

// A library its package loads only with a failing sibling that needs it (follows_failing_needer),
// where that sibling is not checked here for want of a system library: not checked either, for
// the same want (torch-npu 2.4.0's libnpu_profiler.so, with libtorch_npu.so, which needs CANN).
std::optional<CheckResult> follows_unchecked_needer(const nlohmann::json& lib, const std::string& name,
                                                    const std::vector<std::string>& siblings,
                                                    const nlohmann::json& libraries, const std::string& repro) {
  if (!follows_failing_needer(lib)) return std::nullopt;
  for (const auto& needer : lib["dependency_of_failing"]) {
    const std::string needer_name = needer.get<std::string>();
    const auto it = std::find_if(libraries.begin(), libraries.end(), [&](const nlohmann::json& l) {
      return file_name(json_text(l, "path")) == needer_name;
    });
    if (it == libraries.end()) continue;
    std::optional<CheckResult> theirs = needs_system_prerequisite(*it, needer_name, siblings, libraries, repro);
    if (!theirs) continue;
    std::vector<std::string> symbols;
    for (const auto& s : lib.value("undefined", nlohmann::json::array())) symbols.push_back(json_text(s, "demangled"));
    CheckResult c = load_result(
        "library", Status::skip,
        fmt::format("{} not checked here: its package loads it only with {}, which needs it and defines {} of the {} "
                    "symbol(s) it lacks alone (e.g. {}); {}",
                    name, needer_name, lib.value("defined_by_them", 0),
                    lib.value("undefined_count", static_cast<int>(symbols.size())),
                    symbols.empty() ? "?" : symbols.front(), theirs->message));
    c.diagnosis = make_diagnosis(theirs->diagnosis->kind, c.message, theirs->diagnosis->fix, repro,
                                 fmt::format("{}", fmt::join(symbols, "\n")));
    return c;
  }
  return std::nullopt;
}

namespace {

// A library its wheel ships twice (torch-kdtree 1.0: torch_knn….so at the top level and inside its
// package) fails alike at both paths: one red, saying how many copies fail so.
std::vector<CheckResult> one_red_per_copied_library(std::vector<CheckResult> results) {
  std::vector<CheckResult> out;
  std::vector<int> copies;
  for (auto& c : results) {
    const auto same = std::find_if(out.begin(), out.end(), [&](const CheckResult& kept) {
      return c.subtest == "library" && is_bad(c.status) && kept.subtest == c.subtest && kept.status == c.status &&
             kept.message == c.message;
    });
    if (same != out.end()) {
      ++copies[static_cast<std::size_t>(same - out.begin())];
      continue;
    }
    out.push_back(std::move(c));
    copies.push_back(1);
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    if (copies[i] > 1) {
      const std::string also = fmt::format(" (the package ships {} copies of it, at different paths, which fail alike)", copies[i]);
      out[i].message += also;
      if (out[i].diagnosis) out[i].diagnosis->summary += also;
    }
  return out;
}

// A package none of whose compiled libraries is for this runtime: each needs another device's or
// framework's libraries (vllm-xpu-kernels 0.1.16.2: every library links torch's XPU build). Its
// import may still work (its Python defers the libraries), but nothing of it runs here: the pair
// is not judged, never "works" nor "works with limits" (it read ◐ beside Debian's CPU torch).
std::optional<CheckResult> none_for_this_runtime(const std::vector<CheckResult>& results, const nlohmann::json& report,
                                                 const std::string& repro) {
  std::vector<std::string> fixes;
  for (const auto& c : results) {
    if (c.check != "load" || c.subtest != "library" || c.status != Status::skip || !c.diagnosis ||
        c.diagnosis->kind != kAnotherFrameworksLibrary)
      return std::nullopt;
    if (std::find(fixes.begin(), fixes.end(), c.diagnosis->fix) == fixes.end()) fixes.push_back(c.diagnosis->fix);
  }
  if (results.empty()) return std::nullopt;
  const std::string module = report.contains("import") ? json_text(report["import"], "module") : "";
  CheckResult c = load_result(
      "library", Status::skip,
      fmt::format("{}not checked here: {} for this runtime (torch {}): {} another device's or framework's (above)",
                  module.empty() ? "" : module + " ",
                  results.size() > 1 ? fmt::format("none of its {} compiled libraries is", results.size())
                                     : std::string("its one compiled library is not"),
                  json_text(report, "torch"), results.size() > 1 ? "each is" : "it is"));
  c.diagnosis = make_diagnosis(kForAnotherRuntime, c.message, fmt::format("{}", fmt::join(fixes, "; ")), repro);
  return c;
}

// `import torch` failing once the package and its requirements are installed, where one of them
// installs a shared library at the path of one a distribution installed with torch owns
// (load_library.py's "over_torch_libraries"): bmtrain 1.0.1 requires nvidia-nccl-cu11, whose
// nvidia/nccl/lib/libnccl.so.2 (NCCL 2.21.5) pip writes over torch 2.13's nvidia-nccl-cu13 one
// (NCCL 2.29.7), and libtorch_cuda.so lacks ncclCommResume. Every user's `pip install` does it: red.
// The same where a requirement is another release of one of torch's own requirements, and the error
// names a module of it (load_library.py's "over_torch_distributions"): mindie-turbo 2.0rc1 pins
// typing-extensions==4.12.2, and torch 2.15 imports `Format` (its typing-extensions is 4.16.0),
// which 4.12.2 lacks.
std::optional<CheckResult> torch_requirement_replaced(const nlohmann::json& report, const std::string& error,
                                                      const std::string& repro) {
  for (const auto& d : report.value("over_torch_distributions", nlohmann::json::array())) {
    const std::vector<std::string> modules = d.value("modules", std::vector<std::string>{});
    const bool named = std::any_of(modules.begin(), modules.end(), [&](const std::string& m) {
      return error.find("'" + m + "'") != std::string::npos || error.find("/" + m) != std::string::npos;
    });
    if (!named) continue;
    const std::string name = json_text(d, "name"), theirs = json_text(d, "over"), ours = json_text(d, "version");
    CheckResult c = load_result(
        "library", Status::fail,
        fmt::format("import torch fails once it is installed with its requirements: they install {} {}, where torch "
                    "has {} {} ({})",
                    name, ours, name, theirs, error.substr(std::string("import torch: ").size())));
    c.diagnosis = make_diagnosis(
        "requirement_replaces_torch_requirement", c.message,
        fmt::format("put torch's back after it: pip install {}=={} (for its maintainers: a requirement on {} that "
                    "admits {})",
                    name, theirs, name, theirs),
        repro, error);
    return c;
  }
  return std::nullopt;
}

std::optional<CheckResult> torch_broken_by_a_requirement(const nlohmann::json& report, const std::string& repro) {
  const std::string error = json_text(report, "error");
  const nlohmann::json over = report.value("over_torch_libraries", nlohmann::json::array());
  if (error.rfind("import torch:", 0) != 0) return std::nullopt;
  if (!over.is_array() || over.empty()) return torch_requirement_replaced(report, error, repro);
  std::vector<std::string> what, restore;
  for (const auto& f : over) {
    const std::string theirs = json_text(f, "over");
    const bool torch_itself = theirs.rfind("torch ", 0) == 0;
    what.push_back(fmt::format("{} installs {}, which {} installs too", json_text(f, "by"), json_text(f, "file"),
                               torch_itself ? theirs : "torch's requirement " + theirs));
    const std::string pin = theirs.substr(0, theirs.find(' ')) + "==" + theirs.substr(theirs.find(' ') + 1);
    if (std::find(restore.begin(), restore.end(), pin) == restore.end()) restore.push_back(pin);
  }
  CheckResult c = load_result("library", Status::fail,
                              fmt::format("import torch fails once it is installed with its requirements: {}, and pip "
                                          "writes one over the other ({})",
                                          fmt::join(what, "; "), error.substr(std::string("import torch: ").size())));
  c.diagnosis = make_diagnosis(
      "requirement_replaces_torch_library", c.message,
      fmt::format("put torch's back after it: pip install --force-reinstall --no-deps {} (for its maintainers: "
                  "require the package for torch's CUDA, or none where torch brings it)",
                  fmt::join(restore, " ")),
      repro, error);
  return c;
}

}  // namespace

std::vector<CheckResult> load_checks(const nlohmann::json& report, const std::string& repro) {
  std::vector<CheckResult> out;
  if (report.contains("backend_autoload") && report["backend_autoload"].is_object()) {
    out.push_back(breaks_import_torch(report["backend_autoload"], repro));
    return out;
  }
  if (std::optional<CheckResult> c = torch_broken_by_a_requirement(report, repro)) {
    out.push_back(*c);
    return out;
  }
  if (!json_text(report, "error").empty() || !report.contains("libraries") || report["libraries"].empty()) {
    CheckResult c = make_check("", "load", "", Status::error, json_text(report, "error").empty() ? "no library was loaded" : json_text(report, "error"));
    c.diagnosis = make_diagnosis("load_error", c.message, "read the load step's log", repro);
    out.push_back(c);
    return out;
  }
  std::vector<const nlohmann::json*> optional, variants;
  std::vector<CheckResult> consequences;
  const ImportLacks import_lacks = import_lacks_here(report);
  std::map<std::string, std::vector<const nlohmann::json*>> other_torch_builds;  // by build_of
  std::vector<std::string> siblings, loaded_siblings;
  for (const auto& lib : report["libraries"]) {
    const std::string path = json_text(lib, "path");
    siblings.push_back(path.substr(path.rfind('/') + 1));
    if (lib.value("loaded", false)) loaded_siblings.push_back(siblings.back());
  }
  for (const auto& lib : report["libraries"]) {
    const std::string path = json_text(lib, "path");
    const std::string name = path.substr(path.rfind('/') + 1);
    if (lib.value("loaded", false)) {
      out.push_back(load_result("library", Status::pass, fmt::format("{} loads (dlopen RTLD_NOW) in torch {}{}", name,
                                                                     json_text(report, "torch"), loaded_after(lib))));
      continue;
    }
    // Beside an import that fails for want of a library, the libraries lacking that one are what the
    // import was loading (nixl_ep_cpp_torch213….so, for libcuda.so.1): never taken as optional.
    const auto lacked = lib.value("missing_libraries", std::vector<std::string>{});
    const bool lacks_what_the_import_lacks = !import_lacks.soname.empty() &&
                                             std::find(lacked.begin(), lacked.end(), import_lacks.soname) != lacked.end();
    if ((json_flag(lib, "optional") ||
         (json_flag(lib, "optional_unless_imported") && !import_lacks.what.empty() && !lacks_what_the_import_lacks)) &&
        !for_another_framework(lib)) {
      optional.push_back(&lib);
      continue;
    }
    if (!json_text(lib, "variant_of").empty()) {
      variants.push_back(&lib);
      continue;
    }
    if (const std::string with = json_text(lib, "loaded_as_dependency_of"); !with.empty()) {
      // Alone it lacks symbols that the scope of the library needing it provides: as its users
      // get it (through that one), it loads.
      std::string first;
      if (lib.contains("undefined") && !lib["undefined"].empty()) first = json_text(lib["undefined"][0], "demangled");
      out.push_back(load_result("library", Status::pass,
                                fmt::format("{} loads as a dependency of {} (dlopen RTLD_NOW of {}), the way its package "
                                            "loads it; alone it lacks {}, which it does not name a library for",
                                            name, with, with, first.empty() ? "symbols" : first)));
      continue;
    }
    if (json_flag(lib, "loaded_by_import")) {
      // Alone it does not load; its package's import loads what it needs first and then it
      // (load_library.py's mark_loaded_by_import): as its users get it, it loads.
      out.push_back(load_result("library", Status::pass,
                                fmt::format("{} loads as import {} loads it (alone: {})", name,
                                            json_text(report["import"], "module"),
                                            load_failure_summary(lib, siblings, loaded_siblings))));
      continue;
    }
    if (!json_text(lib, "for_torch").empty()) {
      other_torch_builds[json_text(lib, "build_of")].push_back(&lib);
      continue;
    }
    if (json_flag(lib, "host_plugin")) {
      out.push_back(host_plugin_result(lib, name, repro));
      continue;
    }
    if (std::optional<CheckResult> c = needs_system_prerequisite(lib, name, siblings, report["libraries"], repro)) {
      out.push_back(*c);
      continue;
    }
    if (std::optional<CheckResult> c = follows_unchecked_needer(lib, name, siblings, report["libraries"], repro)) {
      out.push_back(*c);
      continue;
    }
    CheckResult c =
        load_result("library", Status::fail, fmt::format("{}: {}", name, load_failure_summary(lib, siblings, loaded_siblings)));
    const std::string kind = json_text(lib, "error_kind");
    if (kind == "undefined_symbol" && lib.contains("system_runtime")) {
      c.diagnosis = system_runtime_diagnosis(lib, json_text(report, "torch"), repro);
      c.message = name + ": " + c.diagnosis->summary;
    } else if (kind == "undefined_symbol") {
      std::vector<std::string> symbols;
      for (const auto& s : lib["undefined"]) symbols.push_back(json_text(s, "demangled"));
      const auto needs = lib.value("needs_failing", std::vector<std::string>{});
      c.diagnosis = make_diagnosis(
          "undefined_symbol",
          needs.empty()
              ? fmt::format("{} needs {} symbol(s) this torch {} does not define, e.g. {}", name,
                            lib.value("undefined_count", static_cast<int>(symbols.size())),
                            json_text(report, "torch"), symbols.empty() ? "?" : symbols.front())
              : fmt::format("{} needs its package's {}, which does not load here (its own red comes first); "
                            "without it, {} symbol(s) are undefined, e.g. {}",
                            name, fmt::join(needs, ", "),
                            lib.value("undefined_count", static_cast<int>(symbols.size())),
                            symbols.empty() ? "?" : symbols.front()),
          "rebuild the library against this torch (an extension built for one torch version does not load "
          "in another; C++ ABI and internal symbols change between releases)",
          repro, fmt::format("{}", fmt::join(symbols, "\n")));
    } else if (kind == "crash" && lib.contains("cpu_lacks")) {
      // intel-extension-for-transformers 1.4.2's libkernellibs.so runs AVX-512 code as it loads:
      // on a CPU without AVX-512 it dies of SIGILL, on its users' Xeons it loads.
      const auto lacks = lib.value("cpu_lacks", std::vector<std::string>{});
      c.status = Status::skip;
      c.message = fmt::format("{} not checked here: {}", name, json_text(lib, "error"));
      c.diagnosis = make_diagnosis(kCpuLacksInstructions, c.message,
                                   fmt::format("nothing to fix for this torch: check it on a CPU with {} (for the "
                                               "library: choose its code by the CPU's features at run time)",
                                               fmt::join(lacks, " and ")),
                                   repro, json_text(lib, "error"));
    } else if (kind == "crash") {
      // The library kills the process that loads it (a static initialiser that throws, an
      // op registered twice): every user's `import` dies the same way.
      c.status = Status::crash;
      c.diagnosis = make_diagnosis("crash_at_load", c.message,
                              "run the reproduction command: the line before the crash (often c10::Error's what()) "
                              "names the registration or initialiser at fault",
                              repro, json_text(lib, "error"));
      // Its own copy of a library that torch's process has already loaded (nixl-cu12's grafted
      // UCX beside Debian's torch, which brings Debian's UCX through Open MPI): two copies in one
      // process, and the second one's initialiser dies of the first.
      if (const auto copies = lib.value("meets_loaded_copy", nlohmann::json::array()); !copies.empty()) {
        const std::string own = json_text(copies[0], "own"), loaded = json_text(copies[0], "loaded");
        c.message = fmt::format("{}: its package's copy {} meets the copy torch's process has already loaded, {}: {}",
                                name, own, loaded, json_text(lib, "error"));
        c.diagnosis = make_diagnosis(
            "second_copy_at_load", c.message,
            fmt::format("two copies of one library in one process: for the library, keep its copy's symbols to "
                        "itself (load it with RTLD_DEEPBIND, or link it in with hidden symbols); for its users, a "
                        "torch whose process does not load {}",
                        loaded.substr(loaded.rfind('/') + 1)),
            repro, json_text(lib, "error"));
      }
    } else if (kind == "missing_library") {
      c.diagnosis = make_diagnosis("missing_shared_library", c.message,
                              "install what provides these libraries or rebuild against this environment's torch",
                              repro, json_text(lib, "error"));
      const std::string torch_cuda = json_text(report, "torch_cuda");
      // Its own, and those of the libraries it needs that are there and do not load.
      auto missing = lib.value("missing_libraries", std::vector<std::string>{});
      const nlohmann::json through = lib.value("missing_through", nlohmann::json::object());
      for (const auto& item : through.items())
        for (const auto& m : item.value().value("missing", std::vector<std::string>{})) missing.push_back(m);
      // A CUDA runtime of another major is decided without a GPU (sgl-kernel 0.3.21's libraries
      // lack libcudart.so.12 beside torch's CUDA 13.2, and the driver's libcuda.so.1 too): red.
      const auto other = other_cuda_runtime(lib, torch_cuda);
      const auto driver = std::find_if(missing.begin(), missing.end(), driver_library);
      if (!torch_cuda.empty() && !other && driver != missing.end()) {
        // The NVIDIA driver's libraries (libcuda.so.1; NVML's libnvidia-ml.so.1, which fbgemm_gpu
        // 1.9.0 links) come with a GPU's driver, not with torch or a toolkit: on a machine without
        // one, a library linked to them cannot load, and what else it lacks may be a library that
        // needs the driver too (cuequivariance-ops-torch's libcue_ops.so).
        c.status = Status::skip;
        c.message = fmt::format("{} not checked here: it links the NVIDIA driver's {}, which only a machine "
                                "with a GPU and its driver has (it also lacks here: {})",
                                name, *driver, load_failure_summary(lib, siblings, loaded_siblings).substr(6));
        c.diagnosis = make_diagnosis("needs_gpu_driver", c.message,
                                     "nothing to fix in the library: run this cell on a machine with a GPU", repro,
                                     json_text(lib, "error"));
      } else if (other) {
        c.message = fmt::format("{}: built for CUDA {}: needs {}, and this runtime's torch has CUDA {}", name,
                                other->major, other->soname, torch_cuda);
        c.diagnosis = make_diagnosis("cuda_runtime_mismatch", c.message,
                                     fmt::format("install the library's build for CUDA {} (or use it with a torch "
                                                 "built for CUDA {})",
                                                 torch_cuda.substr(0, torch_cuda.find('.')), other->major),
                                     repro, json_text(lib, "error"));
      }
    } else {
      c.diagnosis = make_diagnosis("load_error", c.message, "read the load step's log", repro, json_text(lib, "error"));
    }
    if (c.status == Status::fail && lib.contains("python_fallback")) c = with_python_fallback(std::move(c), lib, report);
    // A library that fails because a sibling it needs does not load (its symbols, or the sibling
    // itself: torchaudio 2.9.1's _torchaudio.so NEEDs libtorchaudio.so, which lacks a symbol of
    // torch 2.10) comes after that sibling's red, so that a page's first reason is the cause.
    const bool follows_sibling = !lib.value("needs_failing", std::vector<std::string>{}).empty() ||
                                 needs_failing_sibling(lib, siblings, loaded_siblings) || follows_failing_needer(lib);
    (follows_sibling ? consequences : out).push_back(c);
  }
  out.insert(out.end(), consequences.begin(), consequences.end());
  if (std::optional<CheckResult> none = none_for_this_runtime(out, report, repro)) out.push_back(*none);
  if (!optional.empty()) out.push_back(optional_backends_result(optional, report, import_lacks, repro));
  if (!variants.empty()) out.push_back(runtime_variants_result(variants));
  for (const auto& [stem, builds] : other_torch_builds) out.push_back(no_build_for_this_torch(stem, builds, report, repro));
  return one_red_per_copied_library(std::move(out));
}

namespace {

// The backends an op must have here: what its library promises for it (the op's own, else the
// library's), of those this cell can run; without a promise, CPU and, in a CUDA cell, CUDA.
std::vector<std::string> promised_backends(const Promises* promises, const std::string& op, bool cuda_cell,
                                           std::string* why) {
  std::vector<std::string> declared;
  if (promises) {
    const OpPromise* p = promises->op(op);
    if (p && !p->backends.empty()) {
      declared = p->backends;
      *why = p->why;
    } else if (!promises->backends.empty()) {
      declared = promises->backends;
      *why = promises->why;
    }
  }
  if (declared.empty()) declared = {"cpu", "cuda"};
  std::vector<std::string> out;
  for (const auto& b : declared)
    if (b == "cpu" || cuda_cell) out.push_back(b);
  return out;
}

bool in(const std::vector<std::string>& v, const char* s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

std::vector<CheckResult> namespace_checks(const nlohmann::json& report, const std::string& ns, bool expect_cuda,
                                          const std::string& repro, const Promises* promises, bool gpu_visible) {
  std::vector<CheckResult> out;
  if (!report.contains("ops") || !report["ops"].is_object() || report["ops"].empty()) {
    // What the package's own files say of the namespace (load_library.py files_naming_namespace):
    // a release none of whose files defines or uses an op there makes no promise to break.
    const nlohmann::json in_files = report.value("namespace_in_files", nlohmann::json::object());
    const int read = in_files.value("files", 0);
    const auto naming = in_files.value("naming", std::vector<std::string>{});
    if (read > 0 && naming.empty()) {
      out.push_back(make_check("", "registration", "", Status::skip,
                               fmt::format("registers no op in namespace '{}', and defines none: none of its {} Python "
                                           "files and shared libraries names it (no TORCH_LIBRARY block, no "
                                           "torch.library definition, no torch.ops.{} call); this release is not a "
                                           "dispatcher op library, so the load and the import are its checks",
                                           ns, read, ns)));
      return out;
    }
    // A build with no compiled library at all (a pure-Python wheel: torchao 0.7.0's py3-none-any,
    // what pip picks where no binary wheel fits) whose import works: the ops its Python names are
    // defined by its compiled builds, or by modules the import does not load (triton's). Their
    // features are not here, by the way it was built: a limit, never a pass, and not a break.
    if (!naming.empty() && no_library_built(report) && json_flag(report["import"], "ok")) {
      CheckResult c = make_check(
          "", "registration", "", Status::skip,
          fmt::format("registers no op in namespace '{}': this build holds no compiled library (a pure-Python "
                      "build), and the ops its Python names there ({}) come from its compiled builds or from "
                      "modules its import does not load; what needs them is not available here",
                      ns, fmt::join(naming, ", ")));
      c.diagnosis = make_diagnosis("no_extension_by_design", c.message,
                                   "install a release with a compiled wheel for this Python and platform, where "
                                   "its ops are needed", repro);
      out.push_back(c);
      return out;
    }
    std::string message = fmt::format("no op is registered in namespace '{}' after loading the library", ns);
    if (!naming.empty()) message += fmt::format(" (its files define or use ops there: {})", fmt::join(naming, ", "));
    CheckResult c = make_check("", "registration", "", Status::fail, message);
    c.diagnosis = make_diagnosis("not_registered", c.message,
                            "check the TORCH_LIBRARY(" + ns + ", m) block and that the library loads", repro);
    out.push_back(c);
    return out;
  }
  for (const auto& item : report["ops"].items()) {
    const std::string op = item.key();
    const nlohmann::json& keys = item.value();  // not a structured binding: lambdas capture it (C++17)
    auto has = [&](const char* key) { return keys.contains(key) && keys[key].is_boolean() && keys[key].get<bool>(); };
    // The one registration rule (checks/registry.h): a Composite kernel may serve a key; say so.
    const nlohmann::json served = report.contains("served_by") && report["served_by"].contains(op)
                                      ? report["served_by"][op] : nlohmann::json::object();
    // Kernels that appeared only when the project's module was imported came from Python.
    const std::vector<std::string> python = report.contains("from_python") && report["from_python"].contains(op)
                                                ? report["from_python"][op].get<std::vector<std::string>>()
                                                : std::vector<std::string>{};
    auto named = [&](const char* key) {
      const bool via = served.contains(key) && served[key].is_string() && served[key].get<std::string>() != key;
      const bool from_python = std::find(python.begin(), python.end(), key) != python.end();
      std::string notes = via ? "via " + served[key].get<std::string>() : "";
      if (from_python) notes += (notes.empty() ? "" : ", ") + std::string("from Python");
      return notes.empty() ? std::string(key) : fmt::format("{} ({})", key, notes);
    };
    const bool exists = keys.contains("CPU") && !keys["CPU"].is_null();
    std::string why;
    std::vector<std::string> promised = promised_backends(promises, op, expect_cuda, &why);
    // A kernel registered for the Autograd key runs first for every call on CPU (AutogradCPU)
    // or CUDA (AutogradCUDA) tensors, requiring grad or not: an op whose only kernel is one
    // (fbgemm's jagged_slice, an autograd::Function that calls other ops) is served there.
    const std::string autograd = served.contains("Autograd") && served["Autograd"].is_string()
                                     ? served["Autograd"].get<std::string>() : "";
    auto autograd_serves = [&](const std::string& key) {
      return has("Autograd") && (autograd == "Autograd" || autograd == "Autograd" + key);
    };
    // Where nothing is declared, an op its library registers for CUDA and not for CPU, in a CUDA
    // runtime, is a CUDA-only op by its own registration (torchao 0.7.0's marlin_24_gemm and
    // tensor-core layouts, xformers' cutlass kernels): users call it on CUDA tensors, and the CPU
    // kernel it never had is no break. A CPU runtime still expects CPU: there it cannot run at all.
    const bool declared = promises && ((promises->op(op) && !promises->op(op)->backends.empty()) ||
                                       !promises->backends.empty());
    if (!declared && expect_cuda && has("CUDA") && !has("CPU") && !autograd_serves("CPU")) {
      promised.erase(std::remove(promised.begin(), promised.end(), "cpu"), promised.end());
      why = "it registers a CUDA kernel and none for CPU, a CUDA-only op";
    }
    std::vector<std::string> missing, by_design, via_autograd;
    // Kernels registered from Python are registered when the package's code says so, and a
    // package may wait for a GPU (bitsandbytes imports its CUDA ops only where
    // torch.cuda.is_available()): with none visible here, a missing CUDA kernel of such an op is
    // unknown, not a red. A C++ registration (TORCH_LIBRARY_IMPL) is static: its absence stands.
    bool cuda_waits_for_gpu = false;
    if (exists) {
      for (const auto& [key, backend] : {std::pair{"CPU", "cpu"}, std::pair{"CUDA", "cuda"}}) {
        if (has(key) || (!expect_cuda && std::string(key) == "CUDA")) continue;
        if (autograd_serves(key)) {
          via_autograd.push_back(key);
          continue;
        }
        if (std::string(key) == "CUDA" && !gpu_visible && !python.empty()) {
          cuda_waits_for_gpu = true;
          continue;
        }
        (in(promised, backend) ? missing : by_design).push_back(key);
      }
    }
    const bool ok = exists && missing.empty();
    std::vector<std::string> present;
    for (const char* key : {"CPU", "CUDA", "Meta", "Autograd"})
      if (has(key)) present.push_back(named(key));
    if (present.empty()) present.push_back("no");
    CheckResult reg = make_check(op, "registration", "", ok ? Status::pass : Status::fail,
                           !exists ? fmt::format("{}::{} is not registered at all in this runtime (no schema: its "
                                                 "library did not load, or does not define it)", ns, op)
                           : ok    ? fmt::format("{}::{} has {} kernels{}", ns, op, fmt::join(present, ", "),
                                                     by_design.empty() ? ""
                                                         : fmt::format(" (no {} kernel, as its library promises: {})",
                                                                       fmt::join(by_design, ", "), why))
                                   : fmt::format("{}::{}: no {} kernel{}", ns, op, fmt::join(missing, ", "),
                                                 by_design.empty() ? ""
                                                     : fmt::format(" (nor {}, as its library promises: {})",
                                                                   fmt::join(by_design, ", "), why)));
    if (exists && !via_autograd.empty())
      reg.message += fmt::format(" ({} calls are served by its Autograd kernel, which runs first for every call: "
                                 "judged by presence, a call tells whether it computes or redispatches)",
                                 fmt::join(via_autograd, ", "));
    if (cuda_waits_for_gpu)
      reg.message += " (no CUDA kernel registered here, where no GPU is visible: its kernels are registered from "
                     "Python, which may wait for a GPU; only a GPU machine tells)";
    if (exists) reg.message += reached_note(report, op);
    for (const char* key : {"CPU", "CUDA", "Meta", "Autograd"})
      if (has(key)) reg.kernels.push_back(key);
    reg.missing_kernels = missing;
    // A kernel registered in C++ for CUDA, in a torch built without CUDA, and none for CPU: its
    // library was built against a torch that numbers dispatch keys otherwise, and its
    // TORCH_LIBRARY_IMPL blocks land on other keys here (torchcodec 0.3.0, built for torch 2.7,
    // beside Debian's torch 2.6: the kernels of its CPU block sit on CUDA, its BackendSelect ones
    // stay). Its source is not at fault: a build for this torch is.
    const std::string cuda_site =
        report.contains("registered_at") && report["registered_at"].contains(op)
            ? json_text(report["registered_at"][op], "CUDA") : std::string();
    // torch.library's registrations: a Python file's line, or "/dev/null:N" where torch found no
    // Python frame to name (torchcodec's register_fake kernels beside torch 2.6).
    static const std::regex python_site(R"(\.py:\d+$|^/dev/null:\d+$)");
    const bool shifted = !ok && exists && json_text(report, "torch_cuda").empty() && has("CUDA") &&
                         std::find(missing.begin(), missing.end(), "CPU") != missing.end() && !cuda_site.empty() &&
                         !std::regex_search(cuda_site, python_site);
    if (shifted) {
      reg.message += fmt::format(" (its kernel sits on CUDA instead, registered at {}, in a torch built without "
                                 "CUDA: its library was built against a torch whose dispatch keys are numbered "
                                 "otherwise, and its registrations land on other keys here)",
                                 cuda_site);
      reg.diagnosis = make_diagnosis("dispatch_keys_of_another_torch", reg.message,
                                     "install the release built for this torch: built against another torch, its "
                                     "TORCH_LIBRARY_IMPL registrations land on other dispatch keys (its source needs no "
                                     "change; a build against this torch puts them back)",
                                     repro, cuda_site);
    } else if (!ok)
      reg.diagnosis = make_diagnosis(
          exists ? "not_registered" : "not_registered_at_all",
          expect_cuda && !has("CUDA") && exists
              ? fmt::format("users get \"Could not run '{}::{}' with arguments from the 'CUDA' backend\"", ns, op)
              : reg.message,
          "register the kernel for that dispatch key (TORCH_LIBRARY_IMPL) and build it for this cell", repro);
    out.push_back(reg);
    if (!exists) continue;
    CheckResult meta = make_check(op, "meta", "", has("Meta") ? Status::pass : Status::fail,
                            has("Meta") ? fmt::format("{}::{} has a Meta kernel{}", ns, op,
                                                      named("Meta") == "Meta" ? "" : named("Meta").substr(4))
                                        : fmt::format("{}::{} has no Meta kernel: FakeTensor, torch.compile and export "
                                                      "cannot trace it",
                                                      ns, op));
    if (!has("Meta"))
      meta.diagnosis = make_diagnosis("no_meta_kernel", meta.message,
                                 "register a Meta kernel that computes output shapes, dtypes and devices", repro);
    out.push_back(meta);
  }
  return out;
}

namespace {

// What the CUDA runtime, the driver API and torch say where a program initialises CUDA on a machine
// without a GPU or its driver: cudart's cudaErrorInsufficientDriver (what it returns where no driver
// is installed at all) and cudaErrorNoDevice, torch's lazy init and its device count. A package that
// calls them as it is imported (cpm-kernels 1.0.11: cudaGetDeviceCount) works on its users' GPU
// machines; on one with a GPU the same words (an old driver) stay red.
constexpr const char* kNoGpuWords[] = {"CUDA driver version is insufficient for CUDA runtime version",
                                       "no CUDA-capable device is detected", "CUDA_ERROR_NO_DEVICE",
                                       "Found no NVIDIA driver on your system", "No CUDA GPUs are available"};

std::string no_gpu_words_in(const std::string& error) {
  for (const char* words : kNoGpuWords)
    if (error.find(words) != std::string::npos) return words;
  return "";
}

// A package's own words, as it is imported, that it found no GPU or accelerator to run on:
// flag-gems 5.0.2 asks nvidia-smi and its peers' tools which vendor's device is there, and raises
// "No device were detected on your machine !" where none answers. Its users run it on one.
std::string no_device_words_in(const std::string& error) {
  static const std::regex words(
      R"((?:\bno\s+(?:[\w-]+\s+){0,2}(?:gpus?|devices?|accelerators?)\b[^.!\n]{0,40}?\b(?:detected|found|available|visible)\b)"
      R"(|\bcould\s+not\s+(?:find|detect)\s+(?:any\s+)?(?:[\w-]+\s+)?(?:gpus?|devices?|accelerators?)\b))",
      std::regex::icase);
  std::smatch m;
  return std::regex_search(error, m, words) ? m.str() : "";
}

// The kernel's folders for a device: an import that reads one the machine lacks (uccl 0.0.1.post4
// lists /sys/class/infiniband/ to tell AWS EFA adapters from others, and raises FileNotFoundError
// where there is no RDMA adapter at all) looks for hardware this machine has not. Its users run it
// on a machine that has it.
struct DeviceFolder {
  const char* prefix;
  const char* device;
};
constexpr DeviceFolder kDeviceFolders[] = {
    {"/sys/class/infiniband", "RDMA network adapters (InfiniBand, RoCE, EFA)"},
    {"/dev/infiniband", "RDMA network adapters (InfiniBand, RoCE, EFA)"},
    {"/dev/nvidia", "an NVIDIA GPU"},
    {"/proc/driver/nvidia", "an NVIDIA GPU and its driver"},
    {"/dev/kfd", "an AMD GPU (ROCm)"},
    {"/sys/class/kfd", "an AMD GPU (ROCm)"},
    {"/dev/dri", "a GPU"},
    {"/sys/class/drm", "a GPU"},
    {"/dev/davinci", "an Ascend NPU"},
    {"/dev/accel", "an accelerator"},
    {"/dev/neuron", "an AWS Neuron device"}};

// The device folder ERROR says is missing and the device it is for, or nullopt.
std::optional<std::pair<std::string, const char*>> missing_device_folder(const std::string& error) {
  static const std::regex missing(R"((?:FileNotFoundError|No such file or directory)[^'\n]*'(/(?:sys|dev|proc)/[^']*)')");
  std::smatch m;
  if (!std::regex_search(error, m, missing)) return std::nullopt;
  const std::string path = m[1];
  for (const auto& f : kDeviceFolders)
    if (path.rfind(f.prefix, 0) == 0) return std::make_pair(path, f.device);
  return std::nullopt;
}

}  // namespace

CheckResult import_check(const nlohmann::json& import, const std::string& repro, bool gpu_visible) {
  const std::string module = json_text(import, "module");
  if (json_flag(import, "ok")) {
    const auto declined = import.value("declined", std::vector<std::string>{});
    if (!declined.empty()) {
      // It imports, and runs without what it was built to run: never a pass.
      CheckResult c = load_result("import", Status::fail,
                                  fmt::format("import {} succeeds, but it declines its own compiled extension: \"{}\"",
                                              module, declined.front()));
      c.diagnosis = make_diagnosis("declined_extension", c.message,
                                   "install the release built for this torch (the package's message names the torch "
                                   "it was built for), or build it from source against this torch",
                                   repro, fmt::format("{}", fmt::join(declined, "\n")));
      return c;
    }
    const auto functions = import.value("functions", std::vector<std::string>{});
    return load_result("import", Status::pass,
                       functions.empty() ? fmt::format("import {}: ok", module)
                                         : fmt::format("import {}: ok (functions: {})", module, fmt::join(functions, ", ")));
  }
  if (import.contains("crash")) {
    // The import kills the process that runs it (load_library.py runs it in a child of the load
    // step): every user's `import` dies the same way, and nothing of the package can be checked after it.
    CheckResult c = load_result("import", Status::crash, fmt::format("import {}: {}", module, json_text(import, "error")));
    c.diagnosis = make_diagnosis("crash_at_import", c.message,
                                 "run the reproduction command: the lines before the crash (a C++ exception's what(), "
                                 "the package's own words about the torch it needs) name the initialiser at fault; "
                                 "install the release built for this torch",
                                 repro, json_text(import, "traceback"));
    return c;
  }
  // Its own words that it is a placeholder, with where the package is had (a URL).
  static const std::regex placeholder(R"(\bplaceholder\b[^\n]*?https?://)", std::regex::icase);
  const std::string raised = json_text(import, "error");
  if (std::regex_search(raised, placeholder)) {
    CheckResult c = load_result("import", Status::error,
                                fmt::format("import {}: this distribution is a placeholder, in its own words ({})",
                                            module, raised.substr(0, 300)));
    c.diagnosis = make_diagnosis(kPlaceholderPackage, c.message,
                                 "check the package from where its maintainers publish it (its words name where), "
                                 "not PyPI's placeholder",
                                 repro, raised);
    return c;
  }
  if (const auto held = import.value("package_modules", std::vector<std::string>{}); !held.empty()) {
    // deepspeed-kernels' wheel holds `dskernels`: an atlas that names `deepspeed_kernels` asks
    // for a module no user of the package imports.
    CheckResult c = load_result("import", Status::error,
                                fmt::format("import {}: the package holds no module of that name (its modules: {})",
                                            module, fmt::join(held, ", ")));
    c.diagnosis = make_diagnosis(kImportNotInPackage, c.message,
                                 fmt::format("name one of its modules as the import to check (`import: {}` in the "
                                             "atlas file, `import:` of the project in opmatrix.yaml)",
                                             held.front()),
                                 repro, json_text(import, "error"));
    return c;
  }
  // A missing module it fell back from is the one it wanted (dgl 2.1.0: `packaging`, then
  // setuptools' vendored copy): named first, where the requirement rules read it.
  const auto missing = import.value("missing_modules", std::vector<std::string>{});
  const std::string error = missing.size() < 2 ? json_text(import, "error")
                                               : fmt::format("ModuleNotFoundError: No module named '{}', and then, in "
                                                             "its fallback: No module named '{}'",
                                                             missing.front(), missing.back());
  const auto refused = import.value("refused", std::vector<std::string>{});
  if (const std::string in = json_text(import, "failed_in"); !refused.empty() && !in.empty()) {
    // The refusal is a requirement's, not the package's: its code raised (vptq 0.0.5's import
    // fails inside transformers 5, which disables torch before 2.6). The requirements rule names
    // its release and the requirement that let pip pick it (checks/requirements).
    CheckResult c = load_result("import", Status::fail,
                                fmt::format("import {} fails inside {}, which refuses this torch: {}", module, in,
                                            refusal_quote(refused.front())));
    c.diagnosis = make_diagnosis("requirement_refuses_torch", c.message,
                                 fmt::format("install a release of {} that supports this torch beside it, or the "
                                             "torch {} asks for",
                                             in, in),
                                 repro, fmt::format("{}\n(then: {})", fmt::join(refused, "\n"), error));
    return c;
  }
  if (!refused.empty()) {
    // Its own version check refused this torch, in its words; what it raised after (IPEX 2.8.0's
    // `os.exit(127)`: an AttributeError) is not the cause.
    CheckResult c = load_result("import", Status::fail, fmt::format("import {} refuses this torch: {}", module,
                                                                    refusal_quote(refused.front())));
    c.diagnosis = make_diagnosis("torch_version_refused", c.message,
                                 "install the release made for this torch, or the torch the package asks for", repro,
                                 fmt::format("{}\n(then: {})", fmt::join(refused, "\n"), error));
    return c;
  }
  const std::string traceback = json_text(import, "traceback");
  const bool torch_on_empty_arch_list =
      traceback.find("in _get_cuda_arch_flags") != std::string::npos && error.rfind("IndexError", 0) == 0;
  // "<module> not checked here: <why> (<error>)": an import that needs what this runtime lacks by
  // design, its fix `fix`.
  const auto not_checked = [&](const char* kind, const std::string& why, const char* fix) {
    CheckResult c =
        load_result("import", Status::skip, fmt::format("{} not checked here: {} ({})", module, why, error));
    c.diagnosis = make_diagnosis(kind, c.message, fix, repro, traceback);
    return c;
  };
  if (torch_on_empty_arch_list || error.find("TORCH_CUDA_ARCH_LIST") != std::string::npos) {
    // Compiling at first use (exllamav2 0.3.2), torch.utils.cpp_extension takes the archs from the
    // visible GPUs where TORCH_CUDA_ARCH_LIST is unset; with none it fails on an empty list, or the
    // package stops first and asks for the list (exllamav3 1.6.5). A user's GPU machine has one:
    // nothing of the library can be judged on this one.
    return not_checked(kJitNeedsVisibleGpu,
                       "its first import compiles its CUDA code for the archs of the visible GPUs, and this machine "
                       "has none",
                       "nothing to fix in the library: on a machine with a GPU it compiles for that GPU; where none "
                       "is visible, set TORCH_CUDA_ARCH_LIST (\"8.0;9.0\") before the first import");
  }
  if (error.find("CUDA_HOME environment variable is not set") != std::string::npos &&
      traceback.find("cpp_extension.py") != std::string::npos) {
    // Compiling CUDA code at first use (exllamav3 1.6.5 beside Debian's CPU torch): torch's
    // cpp_extension looks for the toolkit, which a runtime without CUDA does not have. The
    // library is CUDA-only: its users run it beside a CUDA torch.
    return not_checked(kJitNeedsCuda, "its first import compiles CUDA code, and this runtime has no CUDA toolkit",
                       "nothing to fix in the library: it is CUDA-only; use it beside a CUDA build of torch with a "
                       "CUDA toolkit (CUDA_HOME)");
  }
  // An import that stops because AMD's ROCm is not installed (amd-aiter 0.1.7: its JIT's
  // get_hip_version() runs hipconfig at import and raises "ROCm version file not found"): a
  // library for AMD GPUs beside a torch without ROCm (no runtime opmatrix declares has ROCm), as
  // an XPU build is beside a CPU or CUDA torch: nothing of it can be judged here.
  static const std::regex needs_rocm(R"(\b(ROCm|ROCM_HOME|ROCM_PATH|hipconfig|hipcc)\b)");
  if (std::regex_search(error, needs_rocm))
    return not_checked(kNeedsRocm, "its import needs AMD's ROCm, which this runtime (a torch without ROCm) does not have",
                       "nothing to fix in the library: it is for AMD GPUs; use it beside a ROCm build of torch with "
                       "ROCm installed");
  // A compiled module the import loads lacks a system library its users install themselves
  // (basicsr 1.4.2's requirement opencv-python: cv2 needs X11's libxcb.so.1, which a desktop has and
  // this runtime's image has not): not checked here, as for one of the package's own libraries.
  static const std::regex cannot_open(R"(^ImportError: ([\w.+-]+\.so[.\d]*): cannot open shared object file)");
  std::smatch lacked;
  if (std::regex_search(error, lacked, cannot_open))
    if (const auto needs = system_prerequisites_of({lacked[1].str()}); !needs.empty()) {
      const SystemPrerequisite* p = needs.front().prerequisite;
      const std::string in = json_text(import, "failed_in");
      CheckResult c = load_result("import", Status::skip,
                                  fmt::format("{} not checked here: its import loads {}, which needs {}'s {}, {} ({})",
                                              module, in.empty() ? "a compiled module" : in, p->name,
                                              lacked[1].str(), p->why, error));
      c.diagnosis = make_diagnosis("needs_system_library", c.message, fmt::format("where it runs: {}", p->install),
                                   repro, traceback.empty() ? error : traceback);
      return c;
    }
  // Not checked on a machine without a GPU: WHAT the import does, in the words it said so.
  auto without_gpu = [&](const std::string& what, const std::string& words, const char* fix) {
    CheckResult c = load_result("import", Status::skip,
                                fmt::format("{} not checked here: {} (\"{}\")", module, what, words));
    c.diagnosis = make_diagnosis("needs_gpu_driver", c.message, fix, repro, traceback.empty() ? error : traceback);
    return c;
  };
  if (const std::string no_gpu = gpu_visible ? "" : no_gpu_words_in(error); !no_gpu.empty())
    return without_gpu("its import initialises CUDA, and this machine has no GPU or driver", no_gpu,
                       "nothing to fix in the library: run this cell on a machine with a GPU");
  if (const std::string no_device = gpu_visible ? "" : no_device_words_in(error); !no_device.empty())
    return without_gpu("its import looks for a GPU or accelerator to run on, and this machine has none", no_device,
                       "nothing to fix in the library: run this cell on a machine with the device it is for");
  if (const auto folder = missing_device_folder(error)) {
    CheckResult c = load_result("import", Status::skip,
                                fmt::format("{} not checked here: its import reads {}, which only a machine with {} "
                                            "has, and this one has none ({})",
                                            module, folder->first, folder->second, error));
    c.diagnosis = make_diagnosis(kNeedsDevice, c.message,
                                 fmt::format("nothing to fix for this torch: run it on a machine with {} (for the "
                                             "library: look for the device when it is used, not at import)",
                                             folder->second),
                                 repro, traceback.empty() ? error : traceback);
    return c;
  }
  CheckResult c = load_result("import", Status::fail, fmt::format("import {} failed: {}", module, error));
  StepFailure f{"load", traceback, 1, 0, false, 0, repro};
  c.diagnosis = diagnose_step(f);
  c.diagnosis->summary = c.message + (c.diagnosis->summary.empty() ? "" : "; " + c.diagnosis->summary);
  if (c.diagnosis->evidence.empty()) c.diagnosis->evidence = error;
  return c;
}

namespace {

// The first `load` result of `earlier` diagnosed as one of `kinds`, or nullptr.
const CheckResult* load_diagnosed(const std::vector<CheckResult>& earlier, std::initializer_list<const char*> kinds) {
  for (const auto& c : earlier)
    if (c.check == "load" && c.diagnosis &&
        std::any_of(kinds.begin(), kinds.end(), [&](const char* k) { return c.diagnosis->kind == k; }))
      return &c;
  return nullptr;
}

// Whether IMPORT's failure names a system library one of the package's libraries was found to
// lack, or the system software it belongs to (torchcodec's "FFmpeg is not properly installed"):
// that lack is its cause. Another library's failure is not (deepmd-kit's import failing on mpich's
// libfabric beside its TensorFlow op libraries, which lack TensorFlow's).
bool fails_for_a_lacked_system_library(const CheckResult& import, const std::vector<CheckResult>& earlier) {
  if (names_system_prerequisite(import.message)) return true;
  static const std::regex soname(R"(lib[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*\.so[0-9.]*)");
  for (const auto& c : earlier) {
    if (c.check != "load" || !c.diagnosis ||
        (c.diagnosis->kind != "needs_system_library" && c.diagnosis->kind != kAnotherFrameworksLibrary))
      continue;
    for (std::sregex_iterator it(c.message.begin(), c.message.end(), soname), end; it != end; ++it)
      if (import.message.find(it->str()) != std::string::npos)
        return true;
  }
  return false;
}

// A result that follows from a load not checked here: not checked either, saying why (one cause).
CheckResult not_checked_here(CheckResult c, const std::string& why) {
  c.status = Status::skip;
  c.message += " — not checked here: " + why;
  c.diagnosis.reset();
  return c;
}

}  // namespace

CheckResult unregistered_for_want_of_load(CheckResult registration, const std::vector<CheckResult>& earlier) {
  if (registration.check != "registration" || !registration.op.empty() || !is_bad(registration.status) ||
      !registration.diagnosis || registration.diagnosis->kind != "not_registered")
    return registration;
  const CheckResult* unchecked = load_diagnosed(earlier, {"needs_system_library", "needs_gpu_driver", kNeedsDevice,
                                                           kCpuLacksInstructions, kForAnotherRuntime});
  if (!unchecked) return registration;
  return not_checked_here(std::move(registration),
                          "its libraries were not loaded (" + unchecked->diagnosis->kind + ": see load)");
}

CheckResult explained_by_library_failure(CheckResult import, const std::vector<CheckResult>& earlier) {
  // An import that fails for a shared library, where a library of the package needs the GPU
  // driver this machine lacks: not checked here either (one cause: see load).
  const bool names_a_library = import.message.find(".so") != std::string::npos;
  if (load_diagnosed(earlier, {"needs_gpu_driver"}) && is_bad(import.status) && names_a_library)
    return not_checked_here(std::move(import), "a library of it links the NVIDIA driver, which this machine lacks "
                                               "(see load)");
  // The same where its libraries lack a system library its users install (torchcodec's "Could not
  // load libtorchcodec. Likely causes: 1. FFmpeg is not properly installed").
  if (load_diagnosed(earlier, {"needs_system_library", kAnotherFrameworksLibrary}) && is_bad(import.status) &&
      fails_for_a_lacked_system_library(import, earlier))
    return not_checked_here(std::move(import), "its libraries need a system library this runtime lacks (see load)");
  // An import that dies of SIGILL, where a library of the package uses instructions this CPU lacks.
  if (load_diagnosed(earlier, {kCpuLacksInstructions}) && import.status == Status::crash &&
      import.message.find("SIGILL") != std::string::npos)
    return not_checked_here(std::move(import), "a library of it uses instructions this machine's CPU lacks (see load)");
  // An import that fails for the very library a library of the package was found to lack (a CUDA
  // 12 build in a CUDA 13 torch: "needs libcudart.so.12", then the import's "libcudart.so.12:
  // cannot open shared object file"): one cause, red once, at the library.
  static const std::regex cannot_open(R"(([A-Za-z0-9_.+-]+\.so[0-9.]*): cannot open shared object file)");
  std::smatch lacked;
  if (is_bad(import.status) && std::regex_search(import.message, lacked, cannot_open)) {
    const std::string soname = lacked[1];
    const bool said_at_library = std::any_of(earlier.begin(), earlier.end(), [&](const CheckResult& c) {
      return c.check == "load" && c.subtest == "library" && is_bad(c.status) &&
             c.message.find(soname) != std::string::npos;
    });
    if (said_at_library) {
      import.status = Status::skip;
      import.message += fmt::format(" — the missing {} its library lacks, above: one cause, judged there", soname);
      import.diagnosis.reset();
      return import;
    }
  }
  // An import that fails naming, by its path, a library of the package that does not load here,
  // red above (torch 2.14's load_library: "Could not load this library: …/fbgemm_gpu_experimental_
  // gen_ai.so", which lacks libnccl.so.2 and libtorch_cuda.so beside a CPU torch; the loader's
  // "…/X.so: undefined symbol: …"): one cause, red once, at the library.
  if (is_bad(import.status) && !(import.diagnosis && import.diagnosis->kind == "declined_extension")) {
    for (const auto& c : earlier) {
      if (c.check != "load" || c.subtest != "library" || !is_bad(c.status)) continue;
      const std::string name = c.message.substr(0, c.message.find_first_of(": "));
      if (name.find(".so") == std::string::npos || import.message.find("/" + name) == std::string::npos) continue;
      import.status = Status::skip;
      import.message += fmt::format(" — {}, which does not load here, above: one cause, judged there", name);
      import.diagnosis.reset();
      return import;
    }
  }
  // An import that fails for want of its package's own module built for this torch, where the
  // package has that module only for other torches (nixl-cu12 1.5.1 beside torch 2.4.1: its
  // `nixl_ep_cu12` imports `.nixl_ep_cpp_torch24`, and it ships builds for 2.11, 2.12, 2.13 only):
  // one cause, red once, at the library (it read `undeclared_requirement`, as if another
  // distribution owed the module).
  static const std::regex no_module(R"(No module named '([\w.]+)')");
  std::smatch named;
  if (is_bad(import.status) && std::regex_search(import.message, named, no_module)) {
    const std::string missing = named[1];
    const std::string leaf = missing.substr(missing.rfind('.') + 1);
    for (const auto& c : earlier) {
      if (c.check != "load" || !is_bad(c.status) || !c.diagnosis || c.diagnosis->kind != "no_build_for_this_torch")
        continue;
      const std::string stem = c.message.substr(0, c.message.find(':'));
      if (stem.empty() || leaf.rfind(stem, 0) != 0) continue;
      import.status = Status::skip;
      import.message += fmt::format(" — its package's {} has no build for this torch, above: one cause, judged there", stem);
      import.diagnosis.reset();
      return import;
    }
  }
  if (!import.diagnosis || import.diagnosis->kind != "declined_extension") return import;
  const bool library_failed = std::any_of(earlier.begin(), earlier.end(), [](const CheckResult& c) {
    return c.check == "load" && c.subtest == "library" && is_bad(c.status);
  });
  if (!library_failed) return import;
  import.status = Status::pass;
  import.message += " (the library that does not load, above, is why)";
  import.diagnosis.reset();
  return import;
}

CheckResult library_done_without(CheckResult c, const std::vector<CheckResult>& earlier) {
  if (!is_bad(c.status) || c.check == "load") return c;
  for (const auto& load : earlier) {
    if (load.check != "load" || !load.diagnosis || load.diagnosis->kind != kPythonFallback) continue;
    const std::string name = load.message.substr(0, load.message.find(':'));
    if (name.empty() || c.message.rfind(name, 0) != 0) continue;
    c.status = Status::skip;
    c.message += fmt::format(" — why {} does not load here; the package does without it (see load)", name);
    c.diagnosis.reset();
    return c;
  }
  return c;
}

namespace {

// "ns (op, op, …)" of the ops a package registered in one namespace, at most `shown` of them.
std::string namespace_ops(const std::string& ns, const nlohmann::json& ops, std::size_t shown) {
  const auto names = ops.get<std::vector<std::string>>();
  const std::vector<std::string> first(names.begin(), names.begin() + std::min(names.size(), shown));
  return fmt::format("{} ({}{})", ns, fmt::join(first, ", "), names.size() > first.size() ? ", …" : "");
}

}  // namespace

CheckResult not_a_dispatcher_library(const nlohmann::json& report, const std::string& /*repro*/) {
  std::string exposes;
  if (report.contains("import") && json_flag(report["import"], "ok")) {
    const auto functions = report["import"].value("functions", std::vector<std::string>{});
    exposes = fmt::format("; module {} exposes {}", json_text(report["import"], "module"),
                          functions.empty() ? std::string("no functions") : fmt::format("{}", fmt::join(functions, ", ")));
  }
  auto skip = [&](const std::string& message) {
    return make_check("", "registration", "", Status::skip, message + exposes);
  };
  if (!report.contains("namespaces_added"))  // a load step from before 0.14.0: it did not read the dispatcher
    return skip("not a dispatcher op library: no TORCH_LIBRARY namespace to inspect (a pybind11 extension); the load, "
                "the import and the smoke are its checks");
  const nlohmann::json added = report["namespaces_added"];
  if (added.is_object() && !added.empty()) {
    // torch-cluster registers `torch_cluster::fps`, … with torch::RegisterOperators: a dispatcher op
    // library whose namespace nobody declared, not a plain Python extension.
    std::vector<std::string> where;
    for (const auto& [ns, ops] : added.items()) where.push_back(namespace_ops(ns, ops, 6));
    return skip(fmt::format("its ops not judged: no namespace declared for them; its load and import registered ops "
                            "in namespace {} (declare it as the project's `namespace:` to judge them)",
                            fmt::join(where, ", ")));
  }
  const bool imported = report.contains("import") && json_flag(report["import"], "ok");
  const nlohmann::json libraries = report.value("libraries", nlohmann::json::array());
  bool all_loaded = true;
  // A build for another torch or device that this one does not take (torch-tpu's env_2_13_0.so in
  // torch 2.14, load_library.py's "for_torch" / "variant_of") is not meant to load here; one the
  // import loaded ("loaded_by_import") is loaded.
  for (const auto& lib : libraries)
    all_loaded = all_loaded && (json_flag(lib, "loaded") || json_flag(lib, "loaded_by_import") ||
                                lib.contains("variant_of") || lib.contains("for_torch"));
  if (!(imported && all_loaded))
    // Nothing registered where its import failed or a library did not load says nothing of its ops
    // (dgl 2.1.0 beside torch 2.15: built for another torch).
    return skip("its ops not inspected: no namespace declared for them, and its import or a library of it did not "
                "load (see load)");
  // executorch 1.5.1: `import executorch` registers nothing; its libcustom_ops_aot_lib.so registers
  // llama::sdpa_with_kv_cache, … when loaded (its users import executorch.extension.llm.custom_ops).
  std::vector<std::string> by_libraries;
  for (const auto& lib : libraries) {
    const nlohmann::json registers = lib.value("registers", nlohmann::json::object());
    const std::string path = json_text(lib, "path");
    for (const auto& [ns, ops] : registers.items())
      by_libraries.push_back(namespace_ops(ns, ops, 4) + " by " + path.substr(path.find_last_of('/') + 1));
  }
  if (!by_libraries.empty())
    return skip(fmt::format("its ops not judged: its import registers none, and its libraries, loaded, register ops "
                            "in namespace {} (declare it as the project's `namespace:` to judge them)",
                            fmt::join(by_libraries, ", ")));
  return skip(std::string(report.contains("import")
                              ? "registers no dispatcher op at import: its import added none to torch's dispatcher"
                              : "registers no dispatcher op: its libraries, loaded, added none to torch's dispatcher") +
              "; the load, the import and the smoke are its checks");
}

}  // namespace opmatrix
