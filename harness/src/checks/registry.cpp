#include "checks/registry.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/escape.h"


namespace opmatrix {

namespace {

// The steps the cell runner knows by name (cell_runner.cpp), in run order. A step whose
// `when` does not hold in a cell is left out there; a failed `ends_cell` step ends the cell,
// a failed `configure`/`build` leaves out every step that needs a build.
const std::vector<StepSpec> kBuiltinSteps = {
    {"image", "", "podman build / docker build of the cell's Containerfile", 3600, StepWhen::every_cell,
     "builds (or finds, by content hash) the cell's image", true},
    {"probe", "probe.py", "", 120, StepWhen::every_cell,
     "prints the cell's torch, torchvision, CUDA, nvcc, compiler and C++ ABI as one JSON object", true},
    {"fetch", "fetch_pypi.py", "", 600, StepWhen::pypi_project,
     "downloads a pypi:/wheel: project's file from PyPI (the run's one step with network; cached by sha256)", true},
    {"torchvision", "torchvision_registrations.py", "", 120, StepWhen::every_cell,
     "imports torchvision as a Python user does and lists its ops' kernels per dispatch key"},
    {"archs", "", "nvcc --list-gpu-arch", 120, StepWhen::cuda_cell, "lists the archs the cell's nvcc can target"},
    {"nvrtc", "nvrtc_probe.py", "", 600, StepWhen::cuda_cell,
     "compiles a small kernel with the NVRTC torch loads, once per declared arch"},
    {"configure", "", "cmake -S (cases/ or the project) -B /build", 600, StepWhen::every_cell,
     "configures kernels/ + cases/ (or a CMake project) against the cell's LibTorch; setup.py projects have no configure"},
    {"build", "", "cmake --build /build; pip wheel (setup.py, an sdist); pip install --no-deps (a wheel)", 3600,
     StepWhen::every_cell, "compiles and links the op library (and the cases), or installs a prebuilt wheel"},
    {"load", "load_library.py", "", 600, StepWhen::built,
     "dlopen(RTLD_NOW) of every built library in the cell's own torch, then its namespace's kernels"},
    {"test", "", "ctest --test-dir /build", 1800, StepWhen::own_kernels,
     "runs the case binaries of cases/ (one process each), verdicts from their gtest JSON"},
    {"smoke", "", "the project's smoke: argv, from its folder", 1800, StepWhen::project_smoke,
     "runs the project's own smoke command"},
};

// Steps that run after every script check: they judge what the build left.
const std::vector<StepSpec> kClosingSteps = {
    {"fatbin", "fatbin.py", "", 600, StepWhen::built_cuda,
     "lists the SASS and PTX each built library carries (cuobjdump, or the .nv_fatbin section read directly)"},
    {"torchvision-cpp", "", "cases' registration binary on torchvision's _C library", 300, StepWhen::every_cell,
     "dlopens torchvision's _C library from C++ (after an own-kernels build) and judges torchvision"},
};

// One line per check. A script check (checks/script_checks.h) is its own step and is
// declared in kScriptChecks below: one line there plus its script under scripts/cell/.
const std::vector<CheckSpec> kBuiltinChecks = {
    {"versions", {"probe"}, "check_versions", CheckPer::cell,
     "the cell's torch, torchvision and CUDA are the ones it declares, and torch has CUDA where the cell promises it",
     "AssertionError: Torch not compiled with CUDA enabled", {}},
    {"fetch", {"fetch"}, "fetch_check", CheckPer::cell,
     "a pypi:/wheel: project's release exists on PyPI with a file for the cell (an sdist; a wheel this Python and "
     "platform accept), its sha256 the one PyPI lists",
     "ERROR: Could not find a version that satisfies the requirement fbgemm-gpu-cpu==1.0.0",
     {"network", "hash_mismatch", "cache", "fetch_error", "internal", "image_missing_prerequisite"}, true},
    {"build", {"configure", "build", "image"}, "the step's exit status + diagnose_step", CheckPer::cell,
     "the op library compiles and links against the cell's LibTorch (and CUDA), with its log and the line that broke",
     "error: command '/usr/bin/g++' failed with exit code 1", {"image_error", "image_missing_prerequisite"}, true},
    {"load", {"load", "test"}, "load_checks", CheckPer::library,
     "every built library loads with RTLD_NOW in the cell's own torch, else every symbol it lacks, demangled "
     "(subtest library); a project's module imports (subtest import)",
     "ImportError: ...so: undefined symbol: _Z27ms_deform_attn_cuda_forward...", {"image_missing_prerequisite"}, true,
     false, {"library", "import"}},
    {"registration", {"load", "test"}, "namespace_checks (projects) / the cases' OpRegistration", CheckPer::op,
     "every op has a kernel for CPU, Meta and Autograd, and CUDA where the cell promises it (registry rule below)",
     "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend", {}, true},
    {"correctness", {"test"}, "test outcomes (gtest JSON)", CheckPer::op,
     "each op agrees with an independent reference on CPU, and CPU with CUDA where a GPU is visible",
     "wrong boxes kept by nms / wrong values from roi_align", {}},
    {"gradient", {"test"}, "test outcomes (gtest JSON)", CheckPer::op,
     "backward ops agree with finite differences", "torch.autograd.gradcheck: Jacobian mismatch", {}},
    {"meta", {"load", "test"}, "namespace_checks (projects) / the Meta cases", CheckPer::op,
     "every op has a Meta (fake) kernel whose sizes, dtype and device agree with the real kernel's",
     "Unhandled FakeTensor Device Propagation for torchvision.deform_conv2d.default, found two different devices",
     {}, true},
    {"device", {"test"}, "test outcomes (gtest JSON)", CheckPer::op,
     "CUDA-only cases skip with a reason in CPU cells; a cell that promises CUDA fails on a CPU-only torch or build",
     "AssertionError: Torch not compiled with CUDA enabled", {}, false, false, {}, false, false, Weighs::breaks,
     "CUDA kernels not executed (no GPU here)"},
    {"test", {"test"}, "collect_test_outcomes", CheckPer::cell,
     "the case binaries ran at all (no results: none started, or the test step died first)",
     "(no test output)", {}},
    {"arch", {"archs"}, "supported_archs (nvcc --list-gpu-arch)", CheckPer::arch,
     "the cell's nvcc can compile for each declared arch",
     "nvcc fatal : Unsupported gpu architecture 'compute_70'", {}, false, true, {}, false, false, Weighs::limits},
    {"nvrtc", {"nvrtc"}, "nvrtc_checks", CheckPer::arch,
     "the NVRTC torch loads accepts each declared arch (torch's runtime compilation)",
     "nvrtc: error: invalid value for --gpu-architecture (-arch)", {}, false, true, {}, false, false, Weighs::limits},
    {"fatbin", {"fatbin"}, "fatbin_checks", CheckPer::arch,
     "each built library holds SASS or PTX that runs on each declared arch",
     "CUDA error: no kernel image is available for execution on the device", {}, false, true, {}, false, false, Weighs::limits},
    {"torchvision", {"torchvision", "torchvision-cpp"}, "check_torchvision", CheckPer::cell,
     "torchvision imports, pairs with the cell's torch and CUDA, and its ops have the kernels the cell promises",
     "RuntimeError: Couldn't load custom C++ ops ... incompatible PyTorch and torchvision versions", {}},
    {"smoke", {"smoke"}, "the step's exit status", CheckPer::cell,
     "the project's own smoke command passes in the cell", "(the project's own failure)", {"image_missing_prerequisite"},
     true},
    {"cell", {}, "skipped_cell", CheckPer::cell,
     "a cell not run here says why (needs a GPU, a GitHub-only index)", "(skip with the reason)", {}},
};

const std::vector<std::string> kOpcheckSubtests = {"test_schema", "test_autograd_registration", "test_faketensor",
                                                   "test_aot_dispatch_dynamic"};

// New checks: {{step name, script, "", timeout, when, what the step does}, {check line}}.
// The script prints {"checks": [...]} (checks/script_checks.h); nothing else changes.
const std::vector<ScriptCheck> kScriptChecks = {
    {{"duplicate-extensions", "duplicate_extensions.py", "", 120, StepWhen::built, "looks for one Python extension module built twice in one folder"}, {"duplicate_extension", {"duplicate-extensions"}, "script_checks", CheckPer::library, "no extension module sits twice in one folder under different suffixes (_C.cpython-310-*.so next to _C.abi3.so), where the stale one may be the one imported", "ImportError: ..._C.cpython-310-x86_64-linux-gnu.so: undefined symbol (a stale build imported instead of _C.abi3.so)", {}}},
    // The LibTorch stable-ABI build of our kernels (docs/stable-abi.md): built where torch >= its target, refused
    // at compile time below it, and taking nothing from libtorch but the C shim.
    {{"stable-abi", "stable_abi.py", "", 1800, StepWhen::own_kernels, "builds libopmatrix_ops_stable.so (TORCH_TARGET_VERSION) and lists what it imports from libtorch"},
     {"stable-abi", {"stable-abi"}, "script_checks", CheckPer::cell, "the stable-ABI build keeps its promise: it compiles against every torch from its target on and fails to compile below it (subtest build), and it imports only the stable C shim from libtorch, no C++ symbol (subtest imports)", "#error \"TORCH_TARGET_VERSION is newer than the libtorch headers this build is compiling against.\"", {}, false, false, {"build", "imports"}, false, false, Weighs::limits}},
    // What an op's kernels DO under PyTorch's own tooling (docs/checks.md, "Behaviour"), with the
    // samples of scripts/cell/op_samples.py: each its own process, so a crash in one keeps the others.
    {{"opcheck", "opcheck_check.py", "", 1200, StepWhen::built, "runs torch.library.opcheck on every sample of every op (and torchvision's ops), each sub-test on its own"},
     {"opcheck", {"opcheck"}, "script_checks", CheckPer::op, "each op's schema, autograd registration and fake (Meta) kernel agree with its real kernel on every sample: torch.library.opcheck's test_schema, test_autograd_registration, test_faketensor and test_aot_dispatch_dynamic, reported one by one", "opcheck(op, ...): test_faketensor failed with ... found mismatched tensor metadata: Shapes torch.Size([4]) and torch.Size([8]) are not equal!", {}, true, false, kOpcheckSubtests, true, true, Weighs::limits}},
    {{"compile", "compile_check.py", "", 1800, StepWhen::built, "torch.compile(fullgraph=True) of a module calling each op, on its first CPU sample, against eager"},
     {"compile", {"compile"}, "script_checks", CheckPer::op, "each op compiles under torch.compile(fullgraph=True) (Dynamo + Inductor) without a graph break, and the compiled module agrees with eager", "torch._dynamo.exc.Unsupported: ... no fake impl registered (scatter fails when using torch.compile)", {}, true, false, {}, false, true, Weighs::limits}},
    {{"export", "export_check.py", "", 1200, StepWhen::built, "torch.export.export of a module calling each op, then the exported program run against eager"},
     {"export", {"export"}, "script_checks", CheckPer::op, "each op exports with torch.export.export and the exported program agrees with eager", "torch._dynamo.exc.Unsupported / RuntimeError: ... cannot be exported (no fake impl, data-dependent shape)", {}, true, false, {}, false, true, Weighs::limits}},
    {{"fake-device", "fake_device.py", "", 600, StepWhen::built, "each op (and torchvision's) on fake CUDA tensors under FakeTensorMode: no GPU needed"},
     {"fake-device", {"fake-device"}, "script_checks", CheckPer::op, "in a CUDA torch, each op's fake kernel on fake CUDA inputs gives a CUDA output of the real kernel's shape and dtype", "Unhandled FakeTensor Device Propagation for torchvision.deform_conv2d.default, found two different devices cuda:0, cpu", {}, true, false, {}, true, true, Weighs::limits, "fake CUDA tensors not checked (this torch needs a GPU driver for them)"}},
    {{"wheel", "wheel_metadata.py", "", 120, StepWhen::built, "reads the tags and the torch requirement of the wheel a setup.py project built"}, {"wheel", {"wheel"}, "script_checks", CheckPer::library, "the wheel a setup.py project builds accepts the cell's own torch (Requires-Dist) and says which platform it is for", "ERROR: Cannot install mylib because these package versions have conflicting dependencies (torch>=2.4 vs 2.1.2)", {}}},
    // A wheel claiming CPython's stable ABI must be usable by every Python from its floor on (docs/stable-abi.md).
    {{"abi3", "limited_api.py", "", 120, StepWhen::built, "reads an abi3 wheel's tag, its modules' names and what its native libraries link"},
     {"abi3", {"abi3"}, "script_checks", CheckPer::library, "a wheel that claims CPython's limited API (an abi3 tag, or py_limited_api modules) keeps it: tag and module names agree (subtest tag), no native library links libtorch_python or holds pybind11 (subtest links)", "ImportError: dynamic module does not define module export function (PyInit__C) / undefined symbol: _PyObject_… in another Python", {}, true, false, {"tag", "links"}, false, false, Weighs::limits}},
};

}  // namespace

const std::vector<ScriptCheck>& script_check_registry() { return kScriptChecks; }

std::string registration_rule() {
  return "a key counts as served when a kernel is registered for the key itself; for Autograd, else for "
         "AutogradCPU or AutogradCUDA; for CPU, CUDA and Meta, else for CompositeExplicitAutograd; and for every "
         "key, else for CompositeImplicitAutograd. The results name the key that serves it when it is not the key "
         "itself.";
}

const std::vector<StepSpec>& step_registry() {
  static const std::vector<StepSpec> all = [] {
    std::vector<StepSpec> v = kBuiltinSteps;
    for (const auto& s : kScriptChecks) v.push_back(s.step);
    v.insert(v.end(), kClosingSteps.begin(), kClosingSteps.end());
    return v;
  }();
  return all;
}

const std::vector<CheckSpec>& check_registry() {
  static const std::vector<CheckSpec> all = [] {
    std::vector<CheckSpec> v = kBuiltinChecks;
    for (const auto& s : kScriptChecks) v.push_back(s.check);
    return v;
  }();
  return all;
}

const StepSpec* find_step(const std::string& name) {
  for (const auto& s : step_registry())
    if (s.name == name) return &s;
  return nullptr;
}

const CheckSpec* find_check(const std::string& name) {
  for (const auto& c : check_registry())
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<std::string> step_names() {
  std::vector<std::string> v;
  for (const auto& s : step_registry()) v.push_back(s.name);
  return v;
}

std::vector<std::string> check_names() {
  std::vector<std::string> v;
  for (const auto& c : check_registry()) v.push_back(c.name);
  return v;
}

const std::vector<std::string>& step_infrastructure_kinds() {
  static const std::vector<std::string> kinds = {"crash", "timeout", "disk_full"};
  return kinds;
}

bool is_infrastructure(const std::string& check, const std::string& kind) {
  const auto& common = step_infrastructure_kinds();
  if (std::find(common.begin(), common.end(), kind) != common.end()) return true;
  const CheckSpec* spec = find_check(check);
  return spec && std::find(spec->infrastructure_kinds.begin(), spec->infrastructure_kinds.end(), kind) !=
                     spec->infrastructure_kinds.end();
}

std::vector<std::string> project_columns() {
  std::vector<std::string> v;
  for (const auto& c : check_registry())
    if (c.project_column) v.push_back(c.name);
  return v;
}

std::vector<std::string> checks_with_subtests() {
  std::vector<std::string> v;
  for (const auto& c : check_registry())
    if (!c.subtests.empty()) v.push_back(c.name);
  return v;
}

std::vector<std::string> behaviour_columns() {
  std::vector<std::string> v;
  for (const auto& c : check_registry())
    if (c.behaviour_column) v.push_back(c.name);
  return v;
}

std::vector<std::string> arch_columns() {
  std::vector<std::string> v;
  for (const auto& c : check_registry())
    if (c.arch_column) v.push_back(c.name);
  return v;
}

const char* to_string(StepWhen when) {
  switch (when) {
    case StepWhen::every_cell: return "every cell";
    case StepWhen::cuda_cell: return "CUDA cells";
    case StepWhen::built: return "after a build";
    case StepWhen::built_cuda: return "CUDA cells, after a build";
    case StepWhen::own_kernels: return "kernels/ cells, after a build";
    case StepWhen::project_smoke: return "project cells with smoke, after a build";
    case StepWhen::pypi_project: return "projects from PyPI (pypi:, wheel:)";
  }
  return "?";
}

const char* to_string(Weighs w) {
  return w == Weighs::breaks ? "broken" : "works with limits";
}

const char* to_string(CheckPer per) {
  switch (per) {
    case CheckPer::cell: return "cell";
    case CheckPer::op: return "op";
    case CheckPer::arch: return "arch";
    case CheckPer::library: return "library";
  }
  return "?";
}

namespace {

std::string script_of(const StepSpec& s) { return s.script.empty() ? "" : "scripts/cell/" + s.script; }

std::string what_runs(const StepSpec& s) { return s.script.empty() ? s.command : script_of(s); }

}  // namespace

nlohmann::json registry_json() {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : step_registry())
    steps.push_back({{"name", s.name}, {"script", script_of(s)}, {"command", s.command}, {"timeout_s", s.timeout_s},
                     {"when", to_string(s.when)}, {"does", s.does}, {"ends_cell", s.ends_cell}});
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : check_registry()) {
    nlohmann::json j = {{"name", c.name}, {"steps", c.steps}, {"judge", c.judge}, {"per", to_string(c.per)},
                        {"catches", c.catches}, {"user_error", c.user_error}};
    const StepSpec* main = c.steps.empty() ? nullptr : find_step(c.steps.front());
    if (!c.subtests.empty()) j["subtests"] = c.subtests;
    if (c.torchvision_ops) j["torchvision_ops"] = true;
    j["weighs"] = to_string(c.weighs);
    if (!c.unexecuted.empty()) j["unexecuted"] = c.unexecuted;
    j["step"] = main ? main->name : "";
    j["script"] = main ? script_of(*main) : "";
    j["timeout_s"] = main ? main->timeout_s : 0.0;
    std::vector<std::string> infra = step_infrastructure_kinds();
    infra.insert(infra.end(), c.infrastructure_kinds.begin(), c.infrastructure_kinds.end());
    j["infrastructure_kinds"] = infra;
    checks.push_back(j);
  }
  return {{"schema", "opmatrix-checks"}, {"schema_version", 1}, {"steps", steps}, {"checks", checks},
          {"registration_rule", registration_rule()}};
}

std::string registry_text() {
  std::string out = "Checks (what opmatrix reports, per cell):\n";
  for (const auto& c : check_registry()) {
    out += fmt::format("\n  {:<20} per {:<8} from step{} {}\n", c.name, to_string(c.per), c.steps.size() == 1 ? "" : "s",
                       c.steps.empty() ? "(none: a cell not run)" : fmt::format("{}", fmt::join(c.steps, ", ")));
    out += fmt::format("    catches: {}\n", c.catches);
    out += fmt::format("    users see: {}\n", c.user_error);
    if (!c.subtests.empty()) out += fmt::format("    sub-tests: {}\n", fmt::join(c.subtests, ", "));
    if (c.torchvision_ops) out += "    also judges torchvision's own ops (torchvision::NAME)\n";
    out += fmt::format("    a non-pass makes the cell: {}\n", to_string(c.weighs));
    if (!c.unexecuted.empty()) out += fmt::format("    a skip where CUDA is promised: {}\n", c.unexecuted);
  }
  out += "\nSteps (in run order; a cell's `timeouts:` overrides the default):\n";
  for (const auto& s : step_registry())
    out += fmt::format("  {:<22} {:>5.0f} s  {:<28} {}\n", s.name, s.timeout_s, to_string(s.when), what_runs(s));
  out += "\nRegistration rule: " + registration_rule() + "\n";
  return out;
}

std::string checks_markdown() {
  std::string out = "| check | per | step(s) | script | judge | catches | what users see | a non-pass makes the cell |\n"
                    "|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : check_registry()) {
    const StepSpec* main = c.steps.empty() ? nullptr : find_step(c.steps.front());
    const std::string script = main && !main->script.empty() ? "`" + script_of(*main) + "`" : "";
    const std::string weighs = c.unexecuted.empty() ? to_string(c.weighs)
                                                    : fmt::format("{}; a skip where CUDA is promised: {}",
                                                                  to_string(c.weighs), c.unexecuted);
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | `{}` | {} |\n", c.name, to_string(c.per),
                       c.steps.empty() ? "—" : fmt::format("{}", fmt::join(c.steps, ", ")), script, escape_md_cell(c.judge),
                       escape_md_cell(c.catches), escape_md_cell(c.user_error), escape_md_cell(weighs));
  }
  return out;
}

std::string steps_markdown() {
  std::string out = "| # | step | runs in | what runs | default timeout | does |\n|---|---|---|---|---|---|\n";
  int i = 0;
  for (const auto& s : step_registry())
    out += fmt::format("| {} | `{}` | {} | {} | {:.0f} s | {} |\n", ++i, s.name, to_string(s.when),
                       s.script.empty() ? escape_md_cell(s.command) : "`" + script_of(s) + "`", s.timeout_s, escape_md_cell(s.does));
  return out;
}

}  // namespace opmatrix
