// How a package's ops reach its users: through its import, an extension module its code imports
// when first used (`pkg._C`), or not at all in a runtime where its build makes no compiled
// extension by design (a setup.py that builds it only with CUDA). The load judge's words for
// those: registered, but only once that module is imported; not checked, for want of an extension.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/check_results.h"
#include "checks/load/load_judge.h"
#include "util/json_fields.h"
#include "util/python_distributions.h"

namespace opmatrix {

std::string no_extension_reason(const nlohmann::json& build) {
  if (!build.is_object() || !build.contains("no_extension") || !build["no_extension"].is_object()) return "";
  const nlohmann::json& why = build["no_extension"];
  const std::string words = json_text(why, "words");
  const std::string how = json_text(why, "how");  // "drops it where its build fails" (an except); older: none
  return fmt::format("no compiled extension in this runtime, by design: {} `{}` {}{}", json_text(why, "where"),
                     json_text(why, "line"), how.empty() ? "builds it only there" : how,
                     words.empty() ? "" : fmt::format(" (it says '{}')", words));
}

bool no_library_built(const nlohmann::json& report) {
  return json_text(report, "error").empty() && report.contains("libraries") && report["libraries"].empty() &&
         report.contains("import");
}

namespace {

// A prebuilt wheel whose tags name no CPython ABI (py3-none-any: tensordict from 0.15 on) is
// pure Python: its release ships no compiled library, by design. "" for any other build.
std::string pure_python_wheel(const nlohmann::json& build) {
  if (!build.is_object() || !build.contains("tags") || !build["tags"].is_array() || build["tags"].empty()) return "";
  for (const auto& tag : build["tags"]) {
    const std::string t = tag.is_string() ? tag.get<std::string>() : "";
    const auto first = t.find('-'), second = t.find('-', first == std::string::npos ? 0 : first + 1);
    if (first == std::string::npos || second == std::string::npos || t.substr(first + 1, second - first - 1) != "none")
      return "";
  }
  const std::string wheel = json_text(build, "wheel");
  return fmt::format("{} (tags {})", wheel.substr(wheel.rfind('/') + 1),
                     fmt::join(build["tags"].get<std::vector<std::string>>(), ", "));
}

// "{N} {suffix}" of each entry of `key`, an object of file counts by suffix ({".cu": 20}), and
// the files in all.
std::vector<std::string> counts_by_suffix(const nlohmann::json& j, const char* key, int* total) {
  std::vector<std::string> out;
  *total = 0;
  if (!j.contains(key) || !j[key].is_object()) return out;
  for (const auto& [suffix, n] : j[key].items()) {
    const int count = n.is_number() ? n.get<int>() : 0;
    out.push_back(fmt::format("{} {}", count, suffix));
    *total += count;
  }
  return out;
}

// The text items of `key`, a list.
std::vector<std::string> texts_in(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  if (j.contains(key) && j[key].is_array())
    for (const auto& item : j[key])
      if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

// install_wheel.py's "jit": the C/C++/CUDA sources a pure-Python wheel ships and the modules
// that build them with torch.utils.cpp_extension (gsplat 1.5.3). "" where it ships none.
std::string compiled_at_first_use(const nlohmann::json& build) {
  if (!build.is_object() || !build.contains("jit") || !build["jit"].is_object()) return "";
  int files = 0;
  const std::vector<std::string> counts = counts_by_suffix(build["jit"], "sources", &files);
  const std::vector<std::string> builders = texts_in(build["jit"], "builders");
  if (counts.empty() || builders.empty()) return "";
  return fmt::format("ships {} source file{}, which {} compile{} with torch.utils.cpp_extension when first used "
                     "(needs a C++ compiler there)",
                     fmt::join(counts, ", "), files == 1 ? "" : "s", fmt::join(builders, ", "),
                     builders.size() == 1 ? "s" : "");
}

// Whether the wheel's metadata requires ninja (a Requires-Dist line naming it), which
// torch.utils.cpp_extension.load() runs.
bool requires_ninja(const nlohmann::json& build) {
  const auto requires = texts_in(build, "requires");
  return std::any_of(requires.begin(), requires.end(),
                     [](const std::string& line) { return requirement_name(line) == "ninja"; });
}

// build_wheel.py's "device_code": the CUDA device code files (.fatbin, .cubin, .ptx) a wheel
// without shared libraries ships, which it loads through the CUDA driver when its functions run
// (cpm-kernels 1.0.11). "" where it ships none.
std::string device_code_at_use(const nlohmann::json& build) {
  if (!build.is_object() || !build.contains("device_code") || !build["device_code"].is_object()) return "";
  int files = 0;
  const std::vector<std::string> counts = counts_by_suffix(build["device_code"], "files", &files);
  const std::vector<std::string> paths = texts_in(build["device_code"], "paths");
  if (counts.empty()) return "";
  return fmt::format("ships its compiled code as CUDA device code, {} file{} ({}{}), which it loads through the CUDA "
                     "driver when its functions run (needs a GPU there)",
                     fmt::join(counts, ", "), files == 1 ? "" : "s", fmt::join(paths, ", "),
                     paths.size() < 3 ? "" : ", …");
}

// build_wheel.py's "programs": the ELF executables a wheel without shared libraries ships, which
// its functions run as subprocesses (pnnx 20261020: pnnx/pnnx, with its own libtorch linked in), and
// what ldd said of them here. "" where it ships none.
std::string program_at_use(const nlohmann::json& build) {
  if (!build.is_object() || !build.contains("programs") || !build["programs"].is_object()) return "";
  const nlohmann::json& programs = build["programs"];
  const std::vector<std::string> paths = texts_in(programs, "paths");
  if (paths.empty()) return "";
  const int count = programs.value("count", static_cast<int>(paths.size()));
  const std::vector<std::string> torch = texts_in(programs, "torch_libraries");
  const std::vector<std::string> missing = texts_in(programs, "missing");
  std::string linked = torch.empty()
                           ? "linked to none of torch's libraries (the torch it uses is built into it)"
                           : fmt::format("linked to torch's {}", fmt::join(torch, ", "));
  if (!missing.empty()) linked += fmt::format(", and needs {}, which this runtime lacks", fmt::join(missing, ", "));
  return fmt::format("ships {} program{} ({}{}), {}, which its functions run as a subprocess", count,
                     count == 1 ? "" : "s", fmt::join(paths, ", "), static_cast<int>(paths.size()) < count ? ", …" : "",
                     linked);
}

}  // namespace

CheckResult compiled_at_import_result(const nlohmann::json& build, const nlohmann::json& import) {
  std::vector<std::string> names;
  if (import.contains("compiled_at_import") && import["compiled_at_import"].is_array())
    for (const auto& lib : import["compiled_at_import"]) names.push_back(json_text(lib, "name"));
  CheckResult c = make_check("", "load", "", Status::pass, "");
  c.subtest = "library";
  int files = 0;
  const std::vector<std::string> counts =
      build.contains("jit") ? counts_by_suffix(build["jit"], "sources", &files) : std::vector<std::string>{};
  c.message = fmt::format(
      "its import compiled its C++ code against this torch with torch.utils.cpp_extension and loaded it: {}{}; "
      "the import needs a C++ compiler and ninja where it runs{}",
      fmt::join(names, ", "), counts.empty() ? "" : fmt::format(", from the wheel's {}", fmt::join(counts, ", ")),
      requires_ninja(build) ? "" : " (its metadata does not require ninja: `pip install ninja`)");
  return c;
}

CheckResult no_library_result(const nlohmann::json& build, bool cuda_cell, const std::string& repro) {
  const std::string why = no_extension_reason(build);
  CheckResult c = make_check("", "load", "", Status::fail, "");
  c.subtest = "library";
  if (const std::string wheel = pure_python_wheel(build); !wheel.empty() && why.empty()) {
    c.status = Status::skip;
    c.message = "a pure-Python release: its wheel " + wheel + " holds no compiled library; its import is what runs here";
    if (const std::string elsewhere = json_text(build, "compiled_wheels"); !elsewhere.empty()) {
      // The release ships its extension, but not for this Python or platform: pip falls back to
      // the pure-Python wheel, and the features the extension brings are missing here.
      c.message = fmt::format("this runtime gets the release's pure-Python wheel {}, without the compiled extension "
                              "its {} hold: pip takes it because none of those fits this Python or platform; its "
                              "import is what runs here, and what the extension brings is not here",
                              wheel, elsewhere);
      c.diagnosis = make_diagnosis("compiled_wheel_elsewhere", c.message,
                                   "where its compiled features are needed, use a Python its compiled wheels are for, "
                                   "or a release with a compiled wheel for this one",
                                   repro);
    } else if (const std::string device = device_code_at_use(build); !device.empty()) {
      c.message = fmt::format("a release whose compiled code is CUDA device code: its wheel {} {}; this pair runs "
                              "its import, not that code, so its kernels are not measured here",
                              wheel, device);
      c.diagnosis = make_diagnosis("device_code_at_use", c.message,
                                   "nothing to fix in the release: its kernels run where a GPU and its driver are; "
                                   "run this pair on a machine with a GPU to measure them",
                                   repro);
    } else if (const std::string program = program_at_use(build); !program.empty()) {
      c.message = fmt::format("a release whose compiled code is a program, not a library: its wheel {} {}; this "
                              "pair runs its import, not that program, so what the program does is not measured here",
                              wheel, program);
      c.diagnosis = make_diagnosis("program_at_use", c.message,
                                   "nothing to fix in the release: its program runs when its functions call it; run "
                                   "the package's own tests in a project cell to measure it",
                                   repro);
    } else if (const std::string jit = compiled_at_first_use(build); !jit.empty()) {
      c.message = fmt::format("a release that compiles its C++/CUDA code at first use: its wheel {} {}; this pair "
                              "runs its import, not that build, so its ops are not measured here",
                              wheel, jit);
      c.diagnosis = make_diagnosis("compiled_at_first_use", c.message,
                                   "nothing to fix in the release: where it is used, install a C++ compiler (and, "
                                   "for .cu sources, the CUDA toolkit's nvcc and a GPU) before its first call, or "
                                   "the prebuilt extension its maintainers publish",
                                   repro);
    }
  } else if (why.empty()) {
    c.message = "the build made no compiled library, and the project's setup.py does not say why (no branch on CUDA "
                "or a GPU)";
    c.diagnosis = make_diagnosis("no_library_built", c.message,
                                 "check that setup.py's ext_modules is not empty in this runtime (pip wheel -v shows "
                                 "what it builds)", repro);
  } else if (cuda_cell && json_text(build["no_extension"], "switch").empty()) {
    // A switch of its own (an environment variable a plain install leaves unset) is an opt-in, in a
    // CUDA runtime as in any: by design, below.
    const nlohmann::json& gate = build["no_extension"];
    c.message = fmt::format("CUDA promised, built without its extension: {} `{}` decides, and this build (no GPU "
                            "visible, as on build machines and CI runners) made none",
                            json_text(gate, "where"), json_text(gate, "line"));
    c.diagnosis = make_diagnosis("built_cpu_only", c.message,
                                 "build the CUDA extension when FORCE_CUDA=1 or CUDA_HOME is set "
                                 "(torch.utils.cpp_extension.CUDA_HOME), not only when a GPU is visible", repro);
  } else {
    c.status = Status::skip;
    c.message = why + "; its import and its own tests are what run here";
    c.diagnosis = make_diagnosis("no_extension_by_design", c.message,
                                 "nothing to fix: the library builds its extension only where it says; declare "
                                 "`promises: {backends: [cuda]}` to say so in matrix.yaml", repro);
  }
  return c;
}

std::vector<CheckResult> no_extension_checks(const std::vector<std::string>& ops, const std::string& ns,
                                             const std::string& why) {
  std::vector<CheckResult> out;
  for (const auto& op : ops)
    out.push_back(make_check(op, "registration", "", Status::skip,
                             fmt::format("{}::{} not checked here: {}", ns, op, why)));
  return out;
}

std::string reached_note(const nlohmann::json& report, const std::string& op) {
  if (!report.contains("reached") || !report["reached"].is_object()) return "";
  const nlohmann::json& reached = report["reached"];
  const std::string module = report.contains("import") ? json_text(report["import"], "module") : "";
  if (op.empty()) {
    const auto modules = reached.value("modules", std::vector<std::string>{});
    if (modules.empty()) return "";
    return fmt::format(" — its ops register once {} is imported (`import {}` alone does not load it, its own code "
                       "imports it when first used)", fmt::join(modules, ", "), module);
  }
  if (!reached.contains("ops") || !reached["ops"].contains(op)) return "";
  const std::string by = reached["ops"][op].get<std::string>();
  return by.rfind("dlopen ", 0) == 0
             ? fmt::format(" (registered only once {} is loaded with torch.ops.load_library: no import of {} loads "
                           "it)", by.substr(7), module)
             : fmt::format(" (registered once {} is imported; `import {}` alone does not load it)", by, module);
}

}  // namespace opmatrix
