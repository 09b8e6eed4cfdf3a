// run_cell end to end against a fake engine (fake_engine.h) that replays canned step outputs
// shaped like what the cell scripts (scripts/cell/*.py), nvcc, CMake, ctest and gtest really
// print. Only the public API is used: run_cell, Engine, StepCommand (keyed on its step name
// and the script in its argv), CellResult and the Progress callback.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checks/registry.h"
#include "fake_engine.h"
#include "run/cell_runner.h"
#include "testbed.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace opmatrix {

namespace {

using fake::CannedStep;
using fake::FakeEngine;

// ---------------------------------------------------------------------------------------
// Cells
// ---------------------------------------------------------------------------------------

// An `expect` entry (Expectation's first fields, in their order; the rest as declared).
Expectation expect(const std::string& check, const std::string& op, const std::string& arch,
                   const std::string& status, const std::string& reason) {
  return Expectation{check, op, arch, status, reason, {}};
}

Cell cpu_cell() {
  Cell c = testbed::cell("debian-trixie-cpu", "2.6.0", "0.21.0", "none");
  c.image.containerfile = "containers/debian.Containerfile";
  c.image.args = {{"SUITE", "trixie"}};
  c.where = {"local", "github"};
  return c;
}

// A pypi cell of torch + torchvision + nvcc `cuda`, asked for sm_80, sm_90 and sm_100.
Cell pypi_cuda_cell(const std::string& torch, const std::string& torchvision, const std::string& cuda) {
  Cell c = testbed::cell("pypi-torch" + torch + "-cu" + cuda, torch, torchvision, cuda);
  c.cuda_archs = {"8.0", "9.0", "10.0"};
  c.image.containerfile = "containers/pypi.Containerfile";
  c.image.args = {{"TORCH", torch}, {"TORCHVISION", torchvision}, {"NVCC", cuda}};
  c.where = {"local", "github"};
  return c;
}

// Every arch this toolkit (12.8) can target: every check passes.
Cell cuda_cell() { return pypi_cuda_cell("2.7.1", "0.22.1", "12.8"); }

// CUDA 12.4 cannot target sm_100 (nvcc's --list-gpu-arch ends at compute_90).
Cell cuda124_cell() { return pypi_cuda_cell("2.5.1", "0.20.1", "12.4"); }

// Set field by field: Project may grow fields.
Project project(const std::string& kind, std::vector<std::string> smoke) {
  Project p;
  p.path = "examples/boxops";
  p.kind = kind;
  p.ns = "boxops";
  p.ops = {"box_area", "box_iou"};
  p.smoke = std::move(smoke);
  return p;
}

Cell cmake_project_cell() {
  Cell c = cpu_cell();
  c.id = "boxops-trixie-torch2.6-cpu-cmake";
  c.project = project("cmake", {"python3", "smoke.py"});
  return c;
}

// As in matrix.yaml: sm_100 expected to fail on CUDA 12.4 for arch, nvrtc and fatbin.
Cell setuptools_project_cell() {
  Cell c = cuda124_cell();
  c.id = "boxops-pypi-torch2.5.1-cu12.4-setuptools";
  c.project = project("setuptools", {"python3", "smoke.py"});
  c.expect = {expect("arch", "", "10.0", "xfail", "CUDA 12.4 cannot target sm_100"),
              expect("nvrtc", "", "10.0", "xfail", "NVRTC 12.4 rejects sm_100"),
              expect("fatbin", "", "10.0", "xfail", "TORCH_CUDA_ARCH_LIST=8.0;9.0 without +PTX embeds SASS only")};
  return c;
}

// ---------------------------------------------------------------------------------------
// Canned outputs, shaped like the real ones
// ---------------------------------------------------------------------------------------

// scripts/cell/probe.py
json probe_json(const Cell& c) {
  json j = {{"torch", nullptr}, {"torch_cuda", nullptr}, {"cxx11_abi", true}, {"torchvision", nullptr},
            {"torchvision_cuda", nullptr}, {"torchvision_ext", nullptr}, {"nvcc", nullptr},
            {"cxx", "c++ (Debian 14.2.0-19) 14.2.0"}, {"cmake", "3.31.6"}, {"torch_cmake_prefix", nullptr},
            {"python", "3.13.5"}, {"python_executable", "/opt/venv/bin/python3"}, {"torch_path", nullptr},
            {"cudnn", nullptr}, {"cuda_root", nullptr}, {"torchvision_from", "import"}, {"errors", json::array()}};
  const std::string site = "/opt/venv/lib/python3.13/site-packages";
  j["torch_path"] = site + "/torch";
  j["torch_cmake_prefix"] = site + "/torch/share/cmake";
  j["torchvision_ext"] = site + "/torchvision/_C.so";
  if (c.has_cuda()) {
    const std::string tag = "cu" + c.cuda.substr(0, c.cuda.find('.')) + c.cuda.substr(c.cuda.find('.') + 1);
    j["torch"] = c.torch + "+" + tag;
    j["torchvision"] = c.torchvision + "+" + tag;
    j["torch_cuda"] = c.cuda;
    j["torchvision_cuda"] = c.cuda;
    j["nvcc"] = c.cuda == "12.4" ? "12.4.131" : c.cuda + ".93";
    j["cuda_root"] = "/usr/local/cuda-" + c.cuda;
    j["cudnn"] = 90100;
  } else {
    j["torch"] = c.torch + "+cpu";
    j["torchvision"] = c.torchvision + "+cpu";
  }
  return j;
}

json kernel_row(bool cpu, bool cuda, bool meta, bool autograd) {
  return {{"CPU", cpu}, {"CUDA", cuda}, {"Meta", meta}, {"Autograd", autograd}};
}

// scripts/cell/torchvision_registrations.py
json torchvision_json(const Cell& c) {
  const json p = probe_json(c);
  json ops = json::object();
  for (const char* op : {"nms", "roi_align", "deform_conv2d", "roi_pool", "ps_roi_align", "ps_roi_pool"})
    ops[op] = kernel_row(true, c.has_cuda(), true, true);
  return {{"view", "python import"}, {"import_ok", true}, {"error", nullptr}, {"torch_cuda", p["torch_cuda"]},
          {"torchvision", p["torchvision"]}, {"torchvision_cuda", p["torchvision_cuda"]}, {"ops", ops}};
}

// `nvcc --list-gpu-arch`
std::string nvcc_arch_list(const std::string& cuda) {
  std::vector<std::string> archs = {"50", "52", "53", "60", "61", "62", "70", "72", "75", "80", "86", "87", "89", "90"};
  if (cuda != "12.4") archs.insert(archs.end(), {"100", "101", "120"});
  std::string out;
  for (const auto& a : archs) out += "compute_" + a + "\n";
  return out;
}

// scripts/cell/nvrtc_probe.py; `rejected` archs get NVRTC's real complaint.
json nvrtc_json(const Cell& c, const std::set<std::string>& rejected = {}) {
  json archs = json::object();
  for (const auto& a : c.cuda_archs) {
    std::string sm = a;
    sm.erase(std::remove(sm.begin(), sm.end(), '.'), sm.end());
    if (rejected.count(a))
      archs[a] = {{"accepted", false},
                  {"log", "NVRTC_ERROR_INVALID_OPTION: nvrtc: error: invalid value for --gpu-architecture (-arch)"}};
    else
      archs[a] = {{"accepted", true}, {"log", "--gpu-architecture=sm_" + sm + " accepted"}};
  }
  return {{"library", "/opt/venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"},
          {"version", c.cuda},
          {"archs", archs},
          {"error", nullptr}};
}

// fatbin.py given several libraries at once: each one's object, in the order given.
json fatbin_libraries_json(std::vector<json> each) {
  return each.size() == 1 ? each.front() : json{{"libraries", std::move(each)}};
}

json loaded_library(const std::string& path) {
  return {{"path", path}, {"loaded", true}, {"error_kind", nullptr}, {"error", nullptr}, {"undefined", json::array()},
          {"undefined_count", 0}, {"missing_libraries", json::array()}};
}

// scripts/cell/load_library.py
json load_json(const Cell& c, const std::vector<std::string>& libraries, const std::string& ns = "",
               const json& ops = json::object()) {
  const json p = probe_json(c);
  json libs = json::array();
  for (const auto& l : libraries) libs.push_back(loaded_library(l));
  return {{"torch", p["torch"]}, {"torch_cuda", p["torch_cuda"]}, {"libraries", libs},
          {"namespace", ns.empty() ? json(nullptr) : json(ns)}, {"ops", ops}, {"error", nullptr}};
}

// scripts/cell/fatbin.py (with cuobjdump)
json fatbin_json(const Cell& c, const std::string& library, const std::vector<std::string>& elf,
                 const std::vector<std::string>& ptx) {
  return {{"library", library}, {"tool", "/usr/local/cuda-" + c.cuda + "/bin/cuobjdump"}, {"elf", elf}, {"ptx", ptx},
          {"error", nullptr}};
}

// A gtest JSON test entry; the cases tag theirs with RecordProperty("op"/"check").
struct GTest {
  std::string suite, name, op, check;
  std::string failure;      // non-empty: failed with this message
  std::string skip_reason;  // non-empty: GTEST_SKIP
};

// gtest's --gtest_output=json file.
std::string gtest_json(const std::vector<GTest>& tests) {
  json suites = json::array();
  std::map<std::string, std::size_t> index;
  int failures = 0;
  for (const auto& t : tests) {
    if (!index.count(t.suite)) {
      index[t.suite] = suites.size();
      suites.push_back({{"name", t.suite}, {"tests", 0}, {"failures", 0}, {"disabled", 0}, {"errors", 0},
                        {"timestamp", "2025-06-01T10:00:00Z"}, {"time", "0.01s"}, {"testsuite", json::array()}});
    }
    json& s = suites[index[t.suite]];
    json e = {{"name", t.name}, {"file", "/src/cases/common/x.cpp"}, {"line", 42}, {"status", "RUN"},
              {"result", t.skip_reason.empty() ? "COMPLETED" : "SKIPPED"}, {"timestamp", "2025-06-01T10:00:00Z"},
              {"time", "0.004s"}, {"classname", t.suite}};
    if (!t.op.empty()) e["op"] = t.op;
    if (!t.check.empty()) e["check"] = t.check;
    if (!t.skip_reason.empty()) e["skip_reason"] = t.skip_reason;
    if (!t.failure.empty()) {
      e["failures"] = json::array({{{"failure", t.failure}, {"type", ""}}});
      ++failures;
      s["failures"] = s["failures"].get<int>() + 1;
    }
    s["tests"] = s["tests"].get<int>() + 1;
    s["testsuite"].push_back(e);
  }
  return json{{"tests", tests.size()}, {"failures", failures}, {"disabled", 0}, {"errors", 0},
              {"timestamp", "2025-06-01T10:00:00Z"}, {"time", "0.02s"}, {"name", "AllTests"}, {"testsuites", suites}}
      .dump(2);
}

std::string test_list(const std::vector<GTest>& tests) {
  std::string out;
  for (const auto& t : tests) out += t.suite + "." + t.name + "\n";
  return out;
}

// scripts/cell/duplicate_extensions.py (a script check: {"checks": [...]}). Our own
// libopmatrix_ops.so is no Python extension module: nothing to compare, a pass.
json duplicate_extensions_json(int modules) {
  return {{"checks", json::array({{{"check", "duplicate_extension"}, {"status", "pass"},
                                   {"message", std::to_string(modules) + " extension module(s), none built twice"}}})}};
}

// scripts/cell/wheel_metadata.py: only a setup.py project builds a wheel.
json wheel_check_json(const std::string& wheel = "") {
  json c = wheel.empty()
               ? json{{"check", "wheel"}, {"status", "skip"}, {"message", "not a wheel build (a CMake project or kernels/)"}}
               : json{{"check", "wheel"},
                      {"status", "pass"},
                      {"message", wheel + ": tags cp311-cp311-linux_x86_64 (a local platform tag: PyPI takes manylinux "
                                          "wheels only, which auditwheel makes); requires torch>=2.0 (met by torch 2.5.1+cu124)"}};
  return {{"checks", json::array({c})}};
}

const char* const kWheel = "boxops-0.1.0-cp311-cp311-linux_x86_64.whl";

// scripts/cell/build_wheel.py's last stdout line (pip's own output goes to stderr: the log).
json build_wheel_json() {
  return {{"wheel", std::string("/build/wheel/") + kWheel}, {"site", "/build/site"},
          {"tags", json::array({"cp311-cp311-linux_x86_64"})}, {"requires", json::array({"torch>=2.0"})}};
}

// One ctest test (= one case binary): its verdict word and, for one that did not pass, its output.
struct CtestEntry {
  std::string name;
  std::string verdict = "Passed";  // Passed | ***Failed | ***Exception: SegFault | ***Timeout
  double seconds = 1.0;
  std::string output;
};

std::string ctest_log(const std::vector<CtestEntry>& runs) {
  std::ostringstream out;
  out << "Test project /build\n";
  int failed = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    out << "        Start " << i + 1 << ": " << r.name << "\n";
    std::string dots(std::max<int>(3, 40 - static_cast<int>(r.name.size())), '.');
    out << " " << i + 1 << "/" << runs.size() << " Test  #" << i + 1 << ": " << r.name << " " << dots
        << (r.verdict == "Passed" ? "   " : "") << r.verdict << "    " << r.seconds << " sec\n";
    if (!r.output.empty()) out << r.output << (r.output.back() == '\n' ? "" : "\n");
    if (r.verdict != "Passed") ++failed;
  }
  out << "\n" << (runs.empty() ? 0 : 100 * (runs.size() - failed) / runs.size()) << "% tests passed, " << failed
      << " tests failed out of " << runs.size() << "\n\nTotal Test time (real) =   3.10 sec\n";
  return out.str();
}

// The case binaries' tests of a passing run.
std::vector<GTest> registration_tests(bool cuda) {
  std::vector<GTest> t = {{"OpRegistration", "Load/nms", "nms", "load", "", ""},
                          {"OpRegistration", "CpuKernel/nms", "nms", "registration", "", ""},
                          {"OpRegistration", "Load/roi_align", "roi_align", "load", "", ""},
                          {"OpRegistration", "CpuKernel/roi_align", "roi_align", "registration", "", ""}};
  t.push_back({"OpRegistration", "CudaKernel/nms", "nms", "registration", "", cuda ? "" : "the cell declares no CUDA"});
  return t;
}
std::vector<GTest> nms_correctness_tests() {
  return {{"NmsCorrectness", "MatchesReferenceOnOverlappingBoxes/Float", "nms", "correctness", "", ""},
          {"NmsCorrectness", "MatchesReferenceOnOverlappingBoxes/Double", "nms", "correctness", "", ""},
          {"NmsCorrectness", "EmptyInput", "nms", "correctness", "", ""}};
}
std::vector<GTest> roi_align_meta_tests() {
  return {{"RoiAlignMeta", "ForwardMatchesCpuSizesAndDtype/Float", "roi_align", "meta", "", ""},
          {"RoiAlignMeta", "ForwardMatchesCpuSizesAndDtype/Double", "roi_align", "meta", "", ""}};
}
std::vector<GTest> nms_device_tests(bool cuda) {
  return {{"NmsDevice", "CpuAndCudaAgree/Float", "nms", "device", "", cuda ? "" : "torch built without CUDA"}};
}

// The test step of a run where every case binary passes.
CannedStep passing_test_step(bool cuda) {
  CannedStep s = CannedStep::prints("", ctest_log({{"registration"}, {"nms_correctness"}, {"roi_align_meta"},
                                                   {"nms_device"}}));
  const std::map<std::string, std::vector<GTest>> binaries = {{"registration", registration_tests(cuda)},
                                                              {"nms_correctness", nms_correctness_tests()},
                                                              {"roi_align_meta", roi_align_meta_tests()},
                                                              {"nms_device", nms_device_tests(cuda)}};
  for (const auto& [binary, tests] : binaries) {
    s.with_file("@GTEST_OUTPUT/" + binary + ".list", test_list(tests));
    s.with_file("@GTEST_OUTPUT/" + binary + ".json", gtest_json(tests));
  }
  return s;
}

// The generic registration binary run on torchvision's _C library.
std::vector<GTest> torchvision_cpp_tests(bool cuda, bool meta_from_cpp = true) {
  std::vector<GTest> t;
  for (const char* op : {"nms", "roi_align", "deform_conv2d"}) {
    t.push_back({"OpRegistration", std::string("Load/") + op, op, "load", "", ""});
    t.push_back({"OpRegistration", std::string("CpuKernel/") + op, op, "registration", "", ""});
    t.push_back({"OpRegistration", std::string("CudaKernel/") + op, op, "registration", "",
                 cuda ? "" : "the cell declares no CUDA"});
    t.push_back({"OpRegistration", std::string("MetaKernel/") + op, op, "registration",
                 meta_from_cpp ? "" : std::string("torchvision::") + op + " has no Meta kernel", ""});
  }
  return t;
}

const char* const kCompileErrorLog = R"([1/24] Building CXX object kernels/CMakeFiles/opmatrix_ops.dir/cpu/nms_kernel.cpp.o
[2/24] Building CXX object kernels/CMakeFiles/opmatrix_ops.dir/cpu/roi_align_kernel.cpp.o
FAILED: kernels/CMakeFiles/opmatrix_ops.dir/cpu/roi_align_kernel.cpp.o
ccache /usr/bin/c++ -DOPMATRIX_WITH_CUDA=0 -I/src/kernels -O3 -std=gnu++17 -c /src/kernels/cpu/roi_align_kernel.cpp
/src/kernels/cpu/roi_align_kernel.cpp:57:23: error: 'class at::Tensor' has no member named 'data'
   57 |   auto* out = output.data<float>();
      |                      ^~~~
ninja: build stopped: subcommand failed.
)";

// ---------------------------------------------------------------------------------------
// Fixture
// ---------------------------------------------------------------------------------------

class RunCell : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            ("opmatrix-cell-runner-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    settings_.results_dir = (root_ / "results").string();
    // Only the settings that outlive the registry refactor (step timeouts move to the check
    // registry): tests that need a step's exact limit set it in the cell's `timeouts`.
    settings_.build_jobs = 3;
    settings_.per_test_timeout_s = 5;
    engine_ = std::make_unique<FakeEngine>((root_ / "work").string());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // A passing cell whose nms_correctness binary reports `correctness` instead.
  CellResult run_with_correctness(const Cell& cell, const std::vector<GTest>& correctness) {
    script_passing(cell);
    CannedStep test = passing_test_step(false);
    test.with_file("@GTEST_OUTPUT/nms_correctness.json", gtest_json(correctness));
    engine_->on("test", test);
    return run(cell);
  }

  CellResult run(const Cell& cell) {
    Matrix m;
    m.file = "/repo/matrix.yaml";
    m.ops = {"nms", "roi_align"};
    m.cuda_archs = {"8.0", "9.0", "10.0"};
    m.cells = {cell};
    progress_.clear();
    engine_->clear_records();
    return run_cell(m, cell, *engine_, settings_, [this](const std::string& id, const std::string& line) {
      progress_.push_back({id, line});
    });
  }

  // Every script check of the registry (checks/registry.h) answers "pass" unless a test says
  // otherwise: a script check added later needs no canned output to keep these tests green.
  void script_checks_pass() {
    for (const auto& sc : script_check_registry())
      engine_->on(sc.step.name,
                  CannedStep::prints(json{{"checks", json::array({{{"check", sc.check.name},
                                                                  {"status", "pass"},
                                                                  {"message", "no finding (the fake engine's default)"}}})}}
                                         .dump() +
                                     "\n"));
  }
  // The script checks' steps; for a project cell, without those only our own kernels have.
  static std::vector<std::string> script_check_steps(bool project = false) {
    std::vector<std::string> out;
    for (const auto& sc : script_check_registry())
      if (!project || sc.step.when != StepWhen::own_kernels) out.push_back(sc.step.name);
    return out;
  }

  // Runs `c` with every step scripted to pass but `step_name`, which does `canned`.
  CellResult run_with_one_step(const Cell& c, const std::string& step_name, CannedStep canned) {
    script_passing(c);
    engine_->on(step_name, std::move(canned));
    return run(c);
  }

  // A project cell whose build step exits 1 printing `log`; every other step passes.
  CellResult run_project_with_failing_build(const Cell& c, const std::string& log) {
    script_passing_project(c, {});
    engine_->on("build", CannedStep::exits(1, log));
    return run(c);
  }

  // The project's own files, in a repository of this test's (the engine is made anew to see it).
  void project_file(const std::string& rel, const std::string& text) {
    engine_ = std::make_unique<FakeEngine>((root_ / "work").string(), "fake", (root_ / "repo").string());
    const fs::path path = root_ / "repo" / "examples" / "boxops" / rel;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }

  // Every step of a kernels/ + cases/ cell scripted to pass.
  void script_passing(const Cell& c) {
    FakeEngine& e = *engine_;
    script_checks_pass();
    e.on("wheel", CannedStep::prints(wheel_check_json().dump() + "\n"));
    e.on("probe", CannedStep::prints(probe_json(c).dump() + "\n"));
    e.on("torchvision", CannedStep::prints(torchvision_json(c).dump() + "\n"));
    e.on("configure", CannedStep::prints("", "-- The CXX compiler identification is GNU 14.2.0\n-- Found Torch: "
                                             "/opt/venv/lib/python3.13/site-packages/torch/lib/libtorch.so\n"
                                             "-- Configuring done\n-- Generating done\n"));
    e.on("build", CannedStep::prints("", "[1/24] Building CXX object kernels/CMakeFiles/opmatrix_ops.dir/cpu/nms.o\n"
                                         "[24/24] Linking CXX executable registration\n"));
    e.on("load", CannedStep::prints(load_json(c, {"/build/kernels/libopmatrix_ops.so"}).dump() + "\n"));
    e.on("test", passing_test_step(c.has_cuda()));
    e.on("duplicate-extensions", CannedStep::prints(duplicate_extensions_json(0).dump() + "\n"));
    e.on("torchvision-cpp",
         CannedStep::prints("", "[==========] 12 tests from 1 test suite ran.\n")
             .with_file("@gtest_output", gtest_json(torchvision_cpp_tests(c.has_cuda()))));
    if (c.has_cuda()) {
      e.on("archs", CannedStep::prints(nvcc_arch_list(c.cuda)));
      std::set<std::string> rejected;
      if (c.cuda == "12.4") rejected.insert("10.0");
      e.on("nvrtc", CannedStep::prints(nvrtc_json(c, rejected).dump() + "\n"));
      std::vector<std::string> elf;
      for (const auto& a : c.cuda_archs) {
        std::string sm = "sm_" + a;
        sm.erase(std::remove(sm.begin(), sm.end(), '.'), sm.end());
        if (!(c.cuda == "12.4" && a == "10.0")) elf.push_back(sm);
      }
      // PTX of the newest arch too, where the toolkit can target it all (12.4 builds SASS only).
      std::vector<std::string> ptx;
      if (c.cuda != "12.4") ptx.push_back(elf.back());
      e.on("fatbin", CannedStep::prints(fatbin_json(c, "/build/kernels/libopmatrix_ops.so", elf, ptx).dump()));
    }
  }

  // Every step of a project cell scripted to pass.
  // A setup.py project's libraries are where its wheel was installed (/build/site).
  void script_passing_project(const Cell& c, const std::vector<std::string>& libraries) {
    FakeEngine& e = *engine_;
    script_checks_pass();
    const bool wheel = c.project->kind != "cmake";
    e.on("wheel", CannedStep::prints(wheel_check_json(wheel ? kWheel : "").dump() + "\n"));
    e.on("probe", CannedStep::prints(probe_json(c).dump() + "\n"));
    e.on("torchvision", CannedStep::prints(torchvision_json(c).dump() + "\n"));
    e.on("configure", CannedStep::prints("", "-- Found Torch\n-- Configuring done\n-- Generating done\n"));
    if (wheel)
      e.on("build", CannedStep::prints(build_wheel_json().dump() + "\n",
                                       "+ /opt/venv/bin/python3 -m pip wheel --no-deps --no-build-isolation --no-index -w "
                                       "/build/wheel /build/src\nbuilding 'boxops._C' extension\n"));
    else
      e.on("build", CannedStep::prints("", "[4/4] Linking CXX shared library libboxops.so\n"));
    json ops = json::object();
    for (const auto& op : c.project->ops) ops[op] = kernel_row(true, c.has_cuda(), true, true);
    e.on("load", CannedStep::prints(load_json(c, libraries, c.project->ns, ops).dump() + "\n"));
    e.on("smoke", CannedStep::prints("", "box_area, box_iou agree with plain torch (float, double, empty)\n"));
    e.on("requirements", CannedStep::prints(json({{"ok", true}, {"requirements", json::array()}, {"install", json::array()}}).dump() + "\n"));
    e.on("duplicate-extensions", CannedStep::prints(duplicate_extensions_json(1).dump() + "\n"));
    if (c.has_cuda()) {
      e.on("archs", CannedStep::prints(nvcc_arch_list(c.cuda)));
      std::set<std::string> rejected;
      if (c.cuda == "12.4") rejected.insert("10.0");
      e.on("nvrtc", CannedStep::prints(nvrtc_json(c, rejected).dump() + "\n"));
      std::vector<std::string> elf = {"sm_80", "sm_90"};
      if (c.cuda != "12.4") elf.push_back("sm_100");
      std::vector<json> each;
      for (const auto& lib : libraries) each.push_back(fatbin_json(c, lib, elf, {}));
      if (!each.empty()) e.on("fatbin", CannedStep::prints(fatbin_libraries_json(each).dump()));
    }
  }

  // The built-in steps, in run order. Script checks (each its own step, checks/registry.h)
  // are left out of order comparisons: ScriptChecksRunAfterTheBuildBeforeTheClosingSteps
  // places them, so adding one to the registry changes no test here.
  static std::vector<std::string> known(const std::vector<std::string>& names) {
    static const std::set<std::string> steps = {"image", "probe", "fetch", "torchvision", "archs",  "nvrtc",
                                                "configure", "build", "load", "test", "smoke", "fatbin",
                                                "torchvision-cpp"};
    std::vector<std::string> out;
    for (const auto& n : names)
      if (steps.count(n)) out.push_back(n);
    return out;
  }
  // The steps the engine was asked to run.
  std::vector<std::string> ran() const { return known(engine_->step_names()); }
  // The steps the results record.
  static std::vector<std::string> result_step_names(const CellResult& r) {
    return known(testbed::members_of(r.steps, &StepResult::name));
  }
  static const StepResult* step(const CellResult& r, const std::string& name) {
    for (const auto& s : r.steps)
      if (s.name == name) return &s;
    return nullptr;
  }
  static const CheckResult* check(const CellResult& r, const std::string& name, const std::string& op = "",
                                  const std::string& arch = "") {
    for (const auto& c : r.checks)
      if (c.check == name && c.op == op && c.arch == arch) return &c;
    return nullptr;
  }
  static std::string all_checks(const CellResult& r) {
    std::string out;
    for (const auto& c : r.checks)
      out += "  " + c.check + (c.op.empty() ? "" : " op=" + c.op) + (c.arch.empty() ? "" : " arch=" + c.arch) + ": " +
             to_string(c.status) + " — " + c.message.substr(0, 200) + "\n";
    return out;
  }
  // The build step skipped as "not checked here" for `kind` (what the cell lacks), or nullptr
  // (the failure already recorded).
  static const CheckResult* build_not_checked(const CellResult& r, const std::string& kind) {
    const CheckResult* build = check(r, "build");
    EXPECT_TRUE(build && build->diagnosis) << all_checks(r);
    if (!build || !build->diagnosis) return nullptr;
    EXPECT_EQ(build->status, Status::skip);
    EXPECT_EQ(build->diagnosis->kind, kind);
    return build;
  }
  static std::string env_of(const StepCommand& cmd, const std::string& key) {
    for (const auto& [k, v] : cmd.env)
      if (k == key) return v;
    return "<unset>";
  }
  static bool has_arg(const StepCommand& cmd, const std::string& arg) {
    return std::find(cmd.argv.begin(), cmd.argv.end(), arg) != cmd.argv.end();
  }
  static bool argv_mentions(const StepCommand& cmd, const std::string& piece) {
    for (const auto& a : cmd.argv)
      if (a.find(piece) != std::string::npos) return true;
    return false;
  }
  // Console lines that contradict the results: a line for a step (its first word) that calls
  // it failed (fail, error, crash, timeout) where the results record a pass, or calls it
  // passed where they record anything else.
  std::vector<std::string> progress_contradictions(const CellResult& r) const {
    static const std::set<std::string> bad_words = {"fail", "failed", "FAILED", "error", "crash", "timeout"};
    std::vector<std::string> out;
    for (const auto& s : r.steps)
      for (const auto& [id, line] : progress_) {
        std::istringstream words(line);
        std::string first, word;
        words >> first;
        if (first != s.name) continue;
        while (words >> word)
          if (s.status == Status::pass ? bad_words.count(word) > 0 : word == "pass" || word == "passed")
            out.push_back(line + "  (results: " + to_string(s.status) + ")");
      }
    return out;
  }
  std::string unscripted_text() const {
    return "steps with no canned output: " + ::testing::PrintToString(engine_->unscripted());
  }
  // `c` run with every step scripted to pass: every step it ran had its output scripted and
  // passes, and no check is bad (a check may still skip: what each cell skips is its test's).
  CellResult run_passing(const Cell& c) {
    script_passing(c);
    CellResult r = run(c);
    EXPECT_TRUE(engine_->unscripted().empty()) << unscripted_text();
    for (const auto& s : r.steps) EXPECT_EQ(s.status, Status::pass) << "step " << s.name;
    for (const auto& ch : r.checks) EXPECT_FALSE(is_bad(ch.status)) << all_checks(r);
    return r;
  }
  std::string progress_text() const {
    std::string out;
    for (const auto& [id, line] : progress_) out += id + ": " + line + "\n";
    return out;
  }

  fs::path root_;
  RunSettings settings_;
  std::unique_ptr<FakeEngine> engine_;
  std::vector<std::pair<std::string, std::string>> progress_;
};

using Steps = std::vector<std::string>;

// The steps the engine runs for a CPU cell of kernels/ + cases/ that builds.
const Steps kCpuCellSteps = {"probe", "torchvision", "configure", "build", "load", "test", "torchvision-cpp"};

// ---------------------------------------------------------------------------------------
// CPU cell (kernels/ + cases/)
// ---------------------------------------------------------------------------------------

TEST_F(RunCell, CpuCellRunsItsStepsInOrder) {
  const Cell c = cpu_cell();
  script_passing(c);
  const CellResult r = run(c);
  EXPECT_EQ(engine_->ensure_image_calls, 1);
  EXPECT_EQ(ran(), kCpuCellSteps);
  Steps with_image = kCpuCellSteps;
  with_image.insert(with_image.begin(), "image");
  EXPECT_EQ(result_step_names(r), with_image);
  EXPECT_TRUE(engine_->unscripted().empty()) << unscripted_text();
  for (const auto& image : engine_->images_used) EXPECT_EQ(image, engine_->image.tag);
}

TEST_F(RunCell, CpuCellEveryCheckPasses) {
  const Cell c = cpu_cell();
  // No check is bad; a CPU cell's device checks skip (their cases need a CUDA torch), and so
  // does `wheel` (no wheel is built here).
  const CellResult r = run_passing(c);
  EXPECT_EQ(check(r, "wheel")->status, Status::skip);
  EXPECT_EQ(r.status, Status::pass) << all_checks(r);
  EXPECT_TRUE(r.meets_expectations);
  EXPECT_TRUE(r.diagnoses.empty());

  // The whole-cell checks and one per op x check from the case binaries' gtest JSON.
  for (const auto& [name, op] : std::vector<std::pair<std::string, std::string>>{
           {"versions", ""}, {"build", ""}, {"load", ""}, {"torchvision", ""}, {"load", "nms"},
           {"registration", "nms"}, {"load", "roi_align"}, {"registration", "roi_align"}, {"correctness", "nms"},
           {"meta", "roi_align"}})
    EXPECT_TRUE(check(r, name, op)) << name << " " << op << "\n" << all_checks(r);
  EXPECT_FALSE(check(r, "arch", "", "8.0"));
  EXPECT_FALSE(check(r, "fatbin", "", "8.0"));
  // A CPU cell's device tests skip (torch without CUDA): the check is skip, not pass.
  ASSERT_TRUE(check(r, "device", "nms")) << all_checks(r);
  EXPECT_EQ(check(r, "device", "nms")->status, Status::skip);
  const CheckResult* correctness = check(r, "correctness", "nms");
  EXPECT_EQ(correctness->message, "3 tests passed");
  EXPECT_EQ(correctness->tests.size(), 3u);

  EXPECT_EQ(r.versions, probe_json(c));
  EXPECT_EQ(r.image, engine_->image.tag);
  EXPECT_EQ(r.engine, "fake");
  EXPECT_EQ(r.cell.value("id", ""), c.id);
  EXPECT_NE(check(r, "versions")->message.find("torch 2.6.0+cpu"), std::string::npos);
  EXPECT_NE(check(r, "load")->message.find("libopmatrix_ops.so loads"), std::string::npos);
  EXPECT_NE(check(r, "torchvision")->message.find("C++ dlopen view: "), std::string::npos)
      << check(r, "torchvision")->message;
  EXPECT_TRUE(progress_contradictions(r).empty()) << progress_text();
}

TEST_F(RunCell, CpuCellCommandsCarryTheCellsSettings) {
  const Cell c = cpu_cell();
  script_passing(c);
  const CellResult r = run(c);
  ASSERT_EQ(ran(), kCpuCellSteps);
  for (const auto& cmd : engine_->commands) {
    EXPECT_EQ(cmd.cell_id, c.id);
    EXPECT_EQ(env_of(cmd, "OPMATRIX_EXPECT_CUDA"), "0") << cmd.step;
    EXPECT_EQ(cmd.log_path, settings_.results_dir + "/logs/" + c.id + "/" + cmd.step + ".log");
    EXPECT_GT(cmd.timeout_s, 0) << cmd.step;
  }
  for (const auto& s : r.steps) {
    EXPECT_EQ(s.log, "logs/" + c.id + "/" + s.name + ".log");
    if (s.name != "image") EXPECT_EQ(s.command.rfind("fake-run " + engine_->image.tag, 0), 0u) << s.command;
  }
  EXPECT_EQ(engine_->image_log_path, settings_.results_dir + "/logs/" + c.id + "/image.log");
  EXPECT_GT(engine_->image_timeout_s, 0);

  const StepCommand* probe = engine_->command("probe");
  EXPECT_TRUE(probe->capture_stdout);
  EXPECT_TRUE(argv_mentions(*probe, "probe.py"));
  EXPECT_TRUE(engine_->command("torchvision")->capture_stdout);
  EXPECT_TRUE(argv_mentions(*engine_->command("torchvision"), "torchvision_registrations.py"));

  const StepCommand* configure = engine_->command("configure");
  EXPECT_EQ(configure->argv.front(), "cmake");
  EXPECT_TRUE(has_arg(*configure, "/src/cases"));
  EXPECT_TRUE(has_arg(*configure, "/build"));
  EXPECT_TRUE(has_arg(*configure, "-DOPMATRIX_WITH_CUDA=OFF"));
  EXPECT_TRUE(has_arg(*configure, "-DCMAKE_PREFIX_PATH=" + probe_json(c)["torch_cmake_prefix"].get<std::string>()));
  EXPECT_FALSE(argv_mentions(*configure, "CUDA_ARCHS"));
  EXPECT_FALSE(configure->capture_stdout);

  const StepCommand* build = engine_->command("build");
  EXPECT_EQ(build->argv, (Steps{"cmake", "--build", "/build", "-j", "3"}));
  EXPECT_EQ(env_of(*build, "CCACHE_DIR"), "/ccache");

  const StepCommand* load = engine_->command("load");
  EXPECT_TRUE(load->capture_stdout);
  EXPECT_TRUE(argv_mentions(*load, "load_library.py"));
  EXPECT_EQ(load->argv.back(), "/build/kernels/libopmatrix_ops.so");
  EXPECT_FALSE(has_arg(*load, "--namespace"));

  const StepCommand* test = engine_->command("test");
  EXPECT_EQ(test->argv.front(), "ctest");
  EXPECT_TRUE(has_arg(*test, "/build"));
  EXPECT_EQ(env_of(*test, "GTEST_OUTPUT"), "json:/build/gtest/");
  auto t = std::find(test->argv.begin(), test->argv.end(), "--timeout");
  ASSERT_NE(t, test->argv.end());
  EXPECT_EQ(*(t + 1), "5");

  const StepCommand* tv = engine_->command("torchvision-cpp");
  EXPECT_EQ(env_of(*tv, "OPMATRIX_REG_NAMESPACE"), "torchvision");
  EXPECT_EQ(env_of(*tv, "OPMATRIX_REG_LIBRARY"), probe_json(c)["torchvision_ext"].get<std::string>());
  EXPECT_EQ(env_of(*tv, "OPMATRIX_EXPECT_CUDA"), "0");

  // The behaviour checks get our ops as a Python user does: `import opmatrix_ops` from the
  // folder where the build put the library beside that module (it registers nms's fake kernel).
  const StepCommand* opcheck = engine_->command("opcheck");
  ASSERT_NE(opcheck, nullptr);
  EXPECT_EQ(env_of(*opcheck, "OPMATRIX_IMPORT"), "opmatrix_ops");
  EXPECT_EQ(env_of(*opcheck, "PYTHONPATH"), "/build/kernels");
}

TEST_F(RunCell, CellTimeoutsSetTheStepsLimits) {
  Cell c = cpu_cell();
  c.timeouts = {{"image", 4000}, {"probe", 7}, {"configure", 22}, {"build", 900}, {"load", 66}, {"test", 1200}};
  script_passing(c);
  run(c);
  EXPECT_EQ(engine_->image_timeout_s, 4000);
  EXPECT_EQ(engine_->command("probe")->timeout_s, 7);
  EXPECT_EQ(engine_->command("configure")->timeout_s, 22);
  EXPECT_EQ(engine_->command("build")->timeout_s, 900);
  EXPECT_EQ(engine_->command("load")->timeout_s, 66);
  EXPECT_EQ(engine_->command("test")->timeout_s, 1200);
  // A step the cell sets no limit for keeps its default, which is never "none".
  EXPECT_GT(engine_->command("torchvision-cpp")->timeout_s, 0);
}

TEST_F(RunCell, ProjectCellTimeoutsSetTheStepsLimits) {
  Cell c = setuptools_project_cell();
  c.timeouts = {{"build", 901}, {"smoke", 44}, {"nvrtc", 45}, {"fatbin", 46}};
  script_passing_project(c, {"/build/site/boxops/_C.cpython-311-x86_64-linux-gnu.so"});
  run(c);
  EXPECT_EQ(engine_->command("build")->timeout_s, 901);
  EXPECT_EQ(engine_->command("smoke")->timeout_s, 44);
  EXPECT_EQ(engine_->command("nvrtc")->timeout_s, 45);
  EXPECT_EQ(engine_->command("fatbin")->timeout_s, 46);
  EXPECT_GT(engine_->command("archs")->timeout_s, 0);
}

TEST_F(RunCell, HostEngineRecordsNoImageStep) {
  engine_ = std::make_unique<FakeEngine>((root_ / "work").string(), "host", (root_ / "repo").string());
  engine_->image.tag = "host";
  const Cell c = cpu_cell();
  script_passing(c);
  // The host engine's paths are real: the load step names the library in the host build folder.
  engine_->on("load", CannedStep::prints(
                          load_json(c, {engine_->host_build_dir(c) + "/kernels/libopmatrix_ops.so"}).dump()));
  const CellResult r = run(c);
  EXPECT_EQ(result_step_names(r), kCpuCellSteps);
  EXPECT_EQ(r.status, Status::pass) << all_checks(r);
  EXPECT_EQ(r.engine, "host");
  EXPECT_EQ(engine_->command("build")->argv[2], engine_->host_build_dir(c));
}

// ---- failures -------------------------------------------------------------------------

TEST_F(RunCell, CompileErrorFailsTheBuildWithADiagnosis) {
  const Cell c = cpu_cell();
  const CellResult r = run_with_one_step(c, "build", CannedStep::exits(1, kCompileErrorLog));
  EXPECT_EQ(ran(), (Steps{"probe", "torchvision", "configure", "build"}));
  ASSERT_TRUE(step(r, "build"));
  EXPECT_EQ(step(r, "build")->status, Status::fail);
  EXPECT_EQ(step(r, "build")->exit_code, 1);
  const CheckResult* build = check(r, "build");
  ASSERT_TRUE(build) << all_checks(r);
  EXPECT_EQ(build->status, Status::fail);
  ASSERT_TRUE(build->diagnosis);
  EXPECT_EQ(build->diagnosis->kind, "compile_error");
  EXPECT_NE(build->diagnosis->summary.find("/src/kernels/cpu/roi_align_kernel.cpp:57"), std::string::npos)
      << build->diagnosis->summary;
  EXPECT_NE(build->diagnosis->summary.find("has no member named 'data'"), std::string::npos);
  EXPECT_EQ(build->message, build->diagnosis->summary);
  EXPECT_NE(build->diagnosis->repro.find("cmake --build /build"), std::string::npos) << build->diagnosis->repro;
  // The log the runner keeps is what the step wrote.
  std::ifstream log(settings_.results_dir + "/" + step(r, "build")->log);
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_NE(text.str().find(kCompileErrorLog), std::string::npos) << text.str();
  // The torchvision verdict (from the python view) is still given.
  ASSERT_TRUE(check(r, "torchvision"));
  EXPECT_EQ(check(r, "torchvision")->status, Status::pass);
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_FALSE(r.meets_expectations);
  EXPECT_TRUE(progress_contradictions(r).empty()) << progress_text();
}

TEST_F(RunCell, ConfigureErrorStopsBeforeTheBuild) {
  const Cell c = cpu_cell();
  script_passing(c);
  engine_->on("configure", CannedStep::exits(1, R"(-- The CXX compiler identification is GNU 14.2.0
CMake Error at CMakeLists.txt:12 (find_package):
  By not providing "FindTorch.cmake" in CMAKE_MODULE_PATH this project has
  asked CMake to find a package configuration file provided by "Torch", but
  CMake did not find one.

-- Configuring incomplete, errors occurred!
)"));
  const CellResult r = run(c);
  EXPECT_EQ(ran(), (Steps{"probe", "torchvision", "configure"}));
  const CheckResult* build = check(r, "build");
  ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
  EXPECT_EQ(build->status, Status::fail);
  EXPECT_EQ(build->diagnosis->kind, "configure_error");
  EXPECT_NE(build->message.find("FindTorch.cmake"), std::string::npos) << build->message;
  EXPECT_EQ(r.status, Status::fail);
}

TEST_F(RunCell, CompilerKilledBySigsegvIsACrash) {
  const Cell c = cpu_cell();
  const CellResult r =
      run_with_one_step(c, "build", CannedStep::killed_by(SIGSEGV, "[3/24] Building CXX object kernels/x.cpp.o\n"));
  EXPECT_EQ(ran(), (Steps{"probe", "torchvision", "configure", "build"}));
  EXPECT_EQ(step(r, "build")->status, Status::crash);
  EXPECT_EQ(step(r, "build")->signal, SIGSEGV);
  const CheckResult* build = check(r, "build");
  ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
  EXPECT_EQ(build->status, Status::crash);
  EXPECT_EQ(build->diagnosis->kind, "crash");
  EXPECT_NE(build->message.find("SIGSEGV"), std::string::npos) << build->message;
  EXPECT_EQ(r.status, Status::crash);
  EXPECT_FALSE(r.meets_expectations);
  EXPECT_TRUE(progress_contradictions(r).empty()) << progress_text();
}

TEST_F(RunCell, LoadStepCrashIsACrashAndTheTestsStillRun) {
  const Cell c = cpu_cell();
  const CellResult r =
      run_with_one_step(c, "load", CannedStep::killed_by(SIGSEGV, "Fatal Python error: Segmentation fault\n"));
  EXPECT_EQ(ran(), kCpuCellSteps);
  ASSERT_TRUE(check(r, "load")) << all_checks(r);
  EXPECT_EQ(check(r, "load")->status, Status::crash);
  EXPECT_EQ(check(r, "correctness", "nms")->status, Status::pass);
  EXPECT_EQ(r.status, Status::crash);
  EXPECT_TRUE(progress_contradictions(r).empty()) << progress_text();
}

TEST_F(RunCell, BuildTimeoutIsATimeout) {
  Cell c = cpu_cell();
  c.timeouts = {{"build", 33}};
  script_passing(c);
  engine_->on("build", CannedStep::times_out("[12/24] Building CUDA object kernels/cuda/roi_align.cu.o\n"));
  const CellResult r = run(c);
  EXPECT_EQ(ran(), (Steps{"probe", "torchvision", "configure", "build"}));
  EXPECT_EQ(step(r, "build")->status, Status::timeout);
  const CheckResult* build = check(r, "build");
  ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
  EXPECT_EQ(build->status, Status::timeout);
  EXPECT_EQ(build->diagnosis->kind, "timeout");
  EXPECT_NE(build->message.find("33 s"), std::string::npos) << build->message;
  EXPECT_EQ(r.status, Status::timeout);
  EXPECT_TRUE(progress_contradictions(r).empty()) << progress_text();
}

TEST_F(RunCell, ProbeThatCannotStartIsAnErrorAndStopsTheCell) {
  const Cell c = cpu_cell();
  const CellResult r = run_with_one_step(c, "probe", CannedStep::cannot_start("podman: No such file or directory"));
  EXPECT_EQ(ran(), (Steps{"probe"}));
  EXPECT_EQ(result_step_names(r), (Steps{"image", "probe"}));
  EXPECT_EQ(step(r, "probe")->status, Status::error);
  const CheckResult* versions = check(r, "versions");
  ASSERT_TRUE(versions) << all_checks(r);
  EXPECT_EQ(versions->status, Status::error);
  EXPECT_EQ(versions->message, "could not start: podman: No such file or directory");
  EXPECT_EQ(r.status, Status::error);
  EXPECT_FALSE(r.meets_expectations);
  EXPECT_TRUE(progress_contradictions(r).empty()) << progress_text();
}

TEST_F(RunCell, BuildThatCannotStartIsAnError) {
  const Cell c = cpu_cell();
  const CellResult r = run_with_one_step(c, "build", CannedStep::cannot_start("cmake: No such file or directory"));
  EXPECT_EQ(ran(), (Steps{"probe", "torchvision", "configure", "build"}));
  EXPECT_EQ(step(r, "build")->status, Status::error);
  ASSERT_TRUE(check(r, "build"));
  EXPECT_EQ(check(r, "build")->status, Status::error);
  EXPECT_EQ(check(r, "build")->message, "could not start: cmake: No such file or directory");
  EXPECT_EQ(r.status, Status::error);
}

TEST_F(RunCell, ProbeThatFailsStopsTheCell) {
  const Cell c = cpu_cell();
  const CellResult r = run_with_one_step(
      c, "probe",
      CannedStep::exits(2, "/opt/venv/bin/python3: can't open file '/src/scripts/cell/probe.py'\n"));
  EXPECT_EQ(ran(), (Steps{"probe"}));
  ASSERT_TRUE(check(r, "versions"));
  EXPECT_EQ(check(r, "versions")->status, Status::fail);
  EXPECT_TRUE(check(r, "versions")->diagnosis);
  EXPECT_TRUE(is_bad(r.status));
}

TEST_F(RunCell, VersionMismatchIsAnErrorButTheCellGoesOn) {
  const Cell c = cpu_cell();
  script_passing(c);
  json p = probe_json(c);
  p["torch"] = "2.5.1+cpu";
  engine_->on("probe", CannedStep::prints(p.dump()));
  const CellResult r = run(c);
  EXPECT_EQ(ran(), kCpuCellSteps);
  ASSERT_TRUE(check(r, "versions"));
  EXPECT_EQ(check(r, "versions")->status, Status::error);
  EXPECT_NE(check(r, "versions")->message.find("torch 2.6.0 declared, 2.5.1+cpu found"), std::string::npos);
  EXPECT_EQ(r.status, Status::error);
}

// ---- scripts that print no JSON ---------------------------------------------------------

TEST_F(RunCell, ProbePrintingNoJsonIsAnErrorAndStopsTheCell) {
  const Cell c = cpu_cell();
  const CellResult r = run_with_one_step(
      c, "probe",
      CannedStep::prints("Traceback (most recent call last):\n  File \"probe.py\", line 1\n"));
  EXPECT_EQ(ran(), (Steps{"probe"}));
  EXPECT_EQ(step(r, "probe")->status, Status::pass);  // the program ran; its output is the problem
  const CheckResult* versions = check(r, "versions");
  ASSERT_TRUE(versions) << all_checks(r);
  EXPECT_EQ(versions->status, Status::error);
  EXPECT_NE(versions->message.find("printed no JSON"), std::string::npos) << versions->message;
  EXPECT_EQ(r.status, Status::error);
}

TEST_F(RunCell, LoadPrintingNoJsonIsAnErrorAndTheCellGoesOn) {
  const Cell c = cpu_cell();
  const CellResult r = run_with_one_step(c, "load", CannedStep::prints("Segmentation fault (core dumped)\n"));
  EXPECT_EQ(ran(), kCpuCellSteps);
  const CheckResult* load = check(r, "load");
  ASSERT_TRUE(load) << all_checks(r);
  EXPECT_EQ(load->status, Status::error);
  EXPECT_NE(load->message.find("printed no JSON"), std::string::npos) << load->message;
  EXPECT_EQ(check(r, "correctness", "nms")->status, Status::pass);
  EXPECT_EQ(r.status, Status::error);
}

TEST_F(RunCell, TorchvisionPrintingNoJsonIsAnErrorAndTheCellGoesOn) {
  const Cell c = cpu_cell();
  const CellResult r = run_with_one_step(c, "torchvision", CannedStep::prints("Illegal instruction\n"));
  // The cell goes on: the build and tests do not depend on torchvision.
  const Steps steps = ran();
  ASSERT_GE(steps.size(), 6u);
  EXPECT_EQ((Steps(steps.begin(), steps.begin() + 6)),
            (Steps{"probe", "torchvision", "configure", "build", "load", "test"}));
  EXPECT_EQ(check(r, "correctness", "nms")->status, Status::pass);
  const CheckResult* tv = check(r, "torchvision");
  ASSERT_TRUE(tv) << all_checks(r);
  EXPECT_EQ(tv->status, Status::error);
  EXPECT_NE(tv->message.find("printed no JSON"), std::string::npos) << tv->message;
  EXPECT_TRUE(is_bad(r.status));
}

TEST_F(RunCell, TorchvisionStepThatFailsIsATorchvisionFailure) {
  const Cell c = cpu_cell();
  const CellResult r =
      run_with_one_step(c, "torchvision", CannedStep::exits(1, "ModuleNotFoundError: No module named 'dispatcher'\n"));
  // No python view, no torchvision verdict: the C++ view (torchvision-cpp) is not run either.
  EXPECT_EQ(ran(), (Steps{"probe", "torchvision", "configure", "build", "load", "test"}));
  const CheckResult* tv = check(r, "torchvision");
  ASSERT_TRUE(tv) << all_checks(r);
  EXPECT_EQ(tv->status, Status::fail);
  EXPECT_TRUE(tv->diagnosis);
}

// The registration binary on torchvision's _C library dying of a signal is no finding about
// torchvision's kernels: the cell's results must not hide it.
TEST_F(RunCell, TorchvisionCppCrashIsNotHidden) {
  const Cell c = cpu_cell();
  const CellResult r =
      run_with_one_step(c, "torchvision-cpp", CannedStep::killed_by(SIGSEGV, "[ RUN      ] OpRegistration.Load/nms\n"));
  ASSERT_TRUE(step(r, "torchvision-cpp"));
  EXPECT_EQ(step(r, "torchvision-cpp")->status, Status::crash);

  EXPECT_EQ(r.status, Status::crash) << all_checks(r);
}

// ---- the test step --------------------------------------------------------------------

TEST_F(RunCell, FailingTestIsAFailedCheckWithADiagnosis) {
  const Cell c = cpu_cell();
  script_passing(c);
  std::vector<GTest> correctness = nms_correctness_tests();
  correctness[1].failure =
      "/src/cases/correctness/nms_correctness.cpp:88\nkept indices differ from the reference: max error 0.25";
  CannedStep test = passing_test_step(false);
  test.log_text = ctest_log({{"registration"},
                             {"nms_correctness", "***Failed", 1.2,
                              "[ RUN      ] NmsCorrectness.MatchesReferenceOnOverlappingBoxes/Double\n"
                              "[  FAILED  ] NmsCorrectness.MatchesReferenceOnOverlappingBoxes/Double (3 ms)"},
                             {"roi_align_meta"},
                             {"nms_device"}});
  test.result.exit_code = 8;
  test.with_file("@GTEST_OUTPUT/nms_correctness.json", gtest_json(correctness));
  engine_->on("test", test);
  const CellResult r = run(c);
  EXPECT_EQ(step(r, "test")->status, Status::fail);
  const CheckResult* nms = check(r, "correctness", "nms");
  ASSERT_TRUE(nms && nms->diagnosis) << all_checks(r);
  EXPECT_EQ(nms->status, Status::fail);
  EXPECT_NE(nms->message.find("max error 0.25"), std::string::npos) << nms->message;
  EXPECT_EQ(nms->diagnosis->kind, "numerical_mismatch");
  EXPECT_NE(nms->diagnosis->repro.find("--gtest_filter=NmsCorrectness.MatchesReferenceOnOverlappingBoxes/Double"),
            std::string::npos)
      << nms->diagnosis->repro;
  EXPECT_NE(nms->diagnosis->repro.find("/build/nms_correctness"), std::string::npos);
  EXPECT_EQ(check(r, "meta", "roi_align")->status, Status::pass);
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_TRUE(progress_contradictions(r).empty()) << progress_text();
}

TEST_F(RunCell, SkippedTestsAreCountedApartFromPassedOnes) {
  std::vector<GTest> correctness = nms_correctness_tests();
  correctness[2].skip_reason = "this build keeps a refusing C++ Meta kernel";
  const CellResult r = run_with_correctness(cpu_cell(), correctness);
  const CheckResult* nms = check(r, "correctness", "nms");
  ASSERT_TRUE(nms) << all_checks(r);
  EXPECT_EQ(nms->status, Status::pass);
  EXPECT_EQ(nms->message, "2 tests passed, 1 skipped (this build keeps a refusing C++ Meta kernel)");
}

TEST_F(RunCell, CaseBinaryKilledBySigsegvIsACrash) {
  const Cell c = cpu_cell();
  script_passing(c);
  // roi_align_meta died in its first test: no JSON, only its console output and its list.
  CannedStep test = passing_test_step(false);
  test.log_text = ctest_log({{"registration"},
                             {"nms_correctness"},
                             {"roi_align_meta", "***Exception: SegFault", 0.3,
                              "[==========] Running 2 tests from 1 test suite.\n"
                              "[ RUN      ] RoiAlignMeta.ForwardMatchesCpuSizesAndDtype/Float"},
                             {"nms_device"}});
  test.result.exit_code = 8;
  test.host_build_files.erase(
      std::remove_if(test.host_build_files.begin(), test.host_build_files.end(),
                     [](const auto& f) { return f.first == "@GTEST_OUTPUT/roi_align_meta.json"; }),
      test.host_build_files.end());
  engine_->on("test", test);
  const CellResult r = run(c);
  const CheckResult* meta = check(r, "meta", "roi_align");
  ASSERT_TRUE(meta && meta->diagnosis) << all_checks(r);
  EXPECT_EQ(meta->status, Status::crash);
  EXPECT_EQ(meta->diagnosis->kind, "crash");
  EXPECT_NE(meta->message.find("SegFault"), std::string::npos) << meta->message;
  EXPECT_EQ(meta->tests.size(), 2u);  // the one that crashed and the one never reached
  EXPECT_EQ(check(r, "correctness", "nms")->status, Status::pass);
  EXPECT_EQ(r.status, Status::crash);
}

TEST_F(RunCell, TestStepTimeoutWithNoResultsIsATimeout) {
  const Cell c = cpu_cell();
  const CellResult r =
      run_with_one_step(c, "test", CannedStep::times_out("Test project /build\n        Start  1: registration\n"));
  EXPECT_EQ(step(r, "test")->status, Status::timeout);
  const CheckResult* test = check(r, "test");
  ASSERT_TRUE(test && test->diagnosis) << all_checks(r);
  EXPECT_EQ(test->status, Status::timeout);
  EXPECT_EQ(test->diagnosis->kind, "timeout");
  EXPECT_NE(test->message.find("no test results"), std::string::npos) << test->message;
  EXPECT_EQ(r.status, Status::timeout);
}

// ctest itself killed (out of memory: SIGKILL) before any case binary wrote results.
TEST_F(RunCell, TestStepKilledWithNoResultsIsACrash) {
  const Cell c = cpu_cell();
  const CellResult r = run_with_one_step(
      c, "test",
      CannedStep::killed_by(SIGKILL, "Test project /build\n        Start  1: registration\n"));
  EXPECT_EQ(step(r, "test")->status, Status::crash);
  const CheckResult* test = check(r, "test");
  ASSERT_TRUE(test && test->diagnosis) << all_checks(r);
  EXPECT_EQ(test->diagnosis->kind, "killed");

  EXPECT_EQ(test->status, Status::crash);
  EXPECT_EQ(r.status, Status::crash);
}

TEST_F(RunCell, TestStepWhereNoBinaryStartedIsAnError) {
  const Cell c = cpu_cell();
  script_passing(c);
  engine_->on("test", CannedStep::exits(
                          8, ctest_log({{"registration", "***Failed", 0.01,
                                         "/build/registration: error while loading shared libraries: libcuda.so.1: "
                                         "cannot open shared object file: No such file or directory"}})));
  const CellResult r = run(c);
  const CheckResult* test = check(r, "test");
  ASSERT_TRUE(test && test->diagnosis) << all_checks(r);
  EXPECT_EQ(test->status, Status::error);
  EXPECT_EQ(test->diagnosis->kind, "missing_shared_library");
  EXPECT_NE(test->message.find("libcuda.so.1"), std::string::npos) << test->message;
}

TEST_F(RunCell, StaleGtestFilesOfAnEarlierRunDoNotCount) {
  const Cell c = cpu_cell();
  script_passing(c);
  // The first run also ran a binary that the second run's ctest does not list (removed case).
  CannedStep first = passing_test_step(false);
  first.with_file("@GTEST_OUTPUT/old_case.list", "OldCase.Gone\n");
  first.with_file("@GTEST_OUTPUT/old_case.json", gtest_json({{"OldCase", "Gone", "nms", "gradient", "boom", ""}}));
  engine_->on("test", "", std::vector<CannedStep>{first, passing_test_step(false)});
  run(c);
  const CellResult r = run(c);
  EXPECT_FALSE(check(r, "gradient", "nms")) << all_checks(r);
  EXPECT_EQ(r.status, Status::pass) << all_checks(r);
}

TEST_F(RunCell, BuildTreeIsKeptForTheSameImageAndStartedAfreshForAnother) {
  const Cell c = cpu_cell();
  script_passing(c);
  engine_->on("build", CannedStep::prints("", "[24/24] Linking\n").with_file("build.ninja", "# ninja\n"));
  run(c);
  const fs::path ninja = fs::path(engine_->host_build_dir(c)) / "build.ninja";
  ASSERT_TRUE(fs::exists(ninja));
  bool seen_before_build = false;
  engine_->before_step = [&](const StepCommand& cmd) {
    if (cmd.step == "configure") seen_before_build = fs::exists(ninja);
  };
  engine_->on("build", CannedStep::prints("", "ninja: no work to do.\n"));
  run(c);
  EXPECT_TRUE(seen_before_build) << "same image: the incremental build tree is kept";
  engine_->image.tag = "localhost/opmatrix-cell:other456";
  run(c);
  EXPECT_FALSE(seen_before_build) << "another image: the build tree starts afresh";
}

TEST_F(RunCell, LogsOfAnEarlierRunAreReplaced) {
  const Cell c = cpu_cell();
  script_passing(c);
  engine_->on("build", CannedStep::exits(1, kCompileErrorLog));
  run(c);
  script_passing(c);
  const CellResult r = run(c);
  std::ifstream log(settings_.results_dir + "/" + step(r, "build")->log);
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_EQ(text.str().find("error:"), std::string::npos) << text.str();
}

// ---- image ----------------------------------------------------------------------------

TEST_F(RunCell, ImageFailureRunsNoFurtherStep) {
  const Cell c = cpu_cell();
  script_passing(c);
  engine_->image.ok = false;
  engine_->image.built = true;
  engine_->image.error = "the image build failed (exit 1; see the log)";
  engine_->image.process.started = true;
  engine_->image.process.exit_code = 1;
  engine_->image.seconds = 42;
  engine_->image_log =
      "STEP 4/9: RUN pip install torch==2.6.0\nERROR: Could not find a version that satisfies the requirement "
      "torch==2.6.0\nError: building at STEP \"RUN pip install torch==2.6.0\": exit status 1\n";
  const CellResult r = run(c);
  EXPECT_TRUE(engine_->commands.empty());
  EXPECT_EQ(result_step_names(r), (Steps{"image"}));
  EXPECT_EQ(r.steps[0].status, Status::error);
  EXPECT_EQ(r.steps[0].exit_code, 1);
  ASSERT_EQ(r.checks.size(), 1u) << all_checks(r);
  EXPECT_EQ(r.checks[0].check, "build");
  EXPECT_EQ(r.checks[0].status, Status::error);
  EXPECT_EQ(r.checks[0].message, engine_->image.error);
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_EQ(r.diagnoses[0].kind, "image_error");
  EXPECT_NE(r.diagnoses[0].evidence.find("Could not find a version"), std::string::npos);
  EXPECT_EQ(r.status, Status::error);
  EXPECT_FALSE(r.meets_expectations);
  EXPECT_TRUE(r.versions.empty());
}

// A build that ran out of disk is the machine's state: disk_full, an infrastructure kind, so the
// result is not kept and the next run builds the image again.
TEST_F(RunCell, AnImageBuildThatRanOutOfDiskIsDiskFull) {
  const Cell c = cpu_cell();
  script_passing(c);
  engine_->image.ok = false;
  engine_->image.built = true;
  engine_->image.error = "the image build failed (exit 125; see the log)";
  engine_->image.process.started = true;
  engine_->image.process.exit_code = 125;
  engine_->image_log = "STEP 26/34: RUN pip-install-layer.sh /opt/venv/bin/python /pins/7-torch.txt\n"
                       "Error: committing container for step {...}: copying layers and metadata for container: "
                       "writing blob: storing blob to file: write /var/tmp/buildah123: no space left on device\n";
  const CellResult r = run(c);
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_EQ(r.diagnoses[0].kind, "disk_full") << r.diagnoses[0].summary;
  EXPECT_NE(r.diagnoses[0].summary.find("image step ran out of disk space"), std::string::npos) << r.diagnoses[0].summary;
  EXPECT_EQ(r.checks.at(0).status, Status::error);
}

// An image the run's look-ahead built (images/image_prefetch.h): the step keeps the build's own
// seconds and records the cell's wait beside them, in the results and on the console.
TEST_F(RunCell, AnImageFromTheLookAheadRecordsItsBuildAndTheWait) {
  const Cell c = cpu_cell();
  script_passing(c);
  engine_->image.built = true;
  engine_->image.seconds = 312.5;
  engine_->image.acquired_by = "the look-ahead";
  engine_->image.waited_seconds = 4.3;
  const CellResult r = run(c);
  ASSERT_FALSE(r.steps.empty());
  EXPECT_EQ(r.steps[0].name, "image");
  EXPECT_DOUBLE_EQ(r.steps[0].seconds, 312.5);
  ASSERT_TRUE(r.steps[0].waited_seconds.has_value());
  EXPECT_DOUBLE_EQ(*r.steps[0].waited_seconds, 4.3);
  EXPECT_EQ(r.steps[0].command, "build " + engine_->image.tag + " (by the look-ahead; this cell waited 4.3 s)");
  const json j = to_json(r);
  EXPECT_DOUBLE_EQ(j["steps"][0]["waited_seconds"].get<double>(), 4.3);
  EXPECT_DOUBLE_EQ(*cell_result_from_json(j).steps[0].waited_seconds, 4.3);
  const std::string line = "image built " + engine_->image.tag + " (312.5 s, by the look-ahead; waited 4.3 s)";
  EXPECT_TRUE(std::any_of(progress_.begin(), progress_.end(), [&](const auto& p) { return p.second == line; }))
      << line;
}

TEST_F(RunCell, AnImageItBuiltItselfHasNoWait) {
  const Cell c = cpu_cell();
  script_passing(c);
  engine_->image.built = true;
  engine_->image.seconds = 10;
  const CellResult r = run(c);
  ASSERT_FALSE(r.steps.empty());
  EXPECT_FALSE(r.steps[0].waited_seconds.has_value());
  EXPECT_FALSE(to_json(r)["steps"][0].contains("waited_seconds"));
}

// The look-ahead wrote this run's image log before the cell started: it stays, the last
// run's other logs go. Without the look-ahead, the whole folder is the last run's.
TEST_F(RunCell, TheLookAheadsImageLogSurvivesTheCellsStart) {
  const Cell c = cpu_cell();
  script_passing(c);
  const fs::path logs = fs::path(settings_.results_dir) / "logs" / c.id;
  auto write = [](const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  };
  write(logs / "image.log", "STEP 1/5: FROM localhost/opmatrix-base:trixie\n");
  write(logs / "stale.log", "from the last run\n");
  settings_.image_log_from_look_ahead = true;
  run(c);
  EXPECT_TRUE(fs::exists(logs / "image.log"));
  EXPECT_FALSE(fs::exists(logs / "stale.log"));
  EXPECT_NE(read_text_file((logs / "image.log").string()).find("STEP 1/5"), std::string::npos);

  settings_.image_log_from_look_ahead = false;
  write(logs / "stale.log", "from the last run\n");
  run(c);
  EXPECT_FALSE(fs::exists(logs / "image.log"));  // the fake writes no image log of its own
  EXPECT_FALSE(fs::exists(logs / "stale.log"));
}

TEST_F(RunCell, ImageTimeoutIsATimeout) {
  const Cell c = cpu_cell();
  script_passing(c);
  engine_->image.ok = false;
  engine_->image.built = true;
  engine_->image.error = "the image build ran past its time limit";
  engine_->image.process.started = true;
  engine_->image.process.timed_out = true;
  const CellResult r = run(c);
  EXPECT_TRUE(engine_->commands.empty());
  EXPECT_EQ(r.steps.at(0).status, Status::timeout);
  EXPECT_EQ(r.status, Status::timeout);
}

// ---- expectations -----------------------------------------------------------------------

TEST_F(RunCell, ExpectedFailureBecomesXfailAndTheCellMeetsExpectations) {
  Cell c = cpu_cell();
  c.expect = {expect("correctness", "nms", "", "xfail", "torch 2.6's nms keeps ties in another order")};
  std::vector<GTest> correctness = nms_correctness_tests();
  correctness[0].failure = "kept indices differ from the reference";
  const CellResult r = run_with_correctness(c, correctness);
  const CheckResult* nms = check(r, "correctness", "nms");
  ASSERT_TRUE(nms) << all_checks(r);
  EXPECT_EQ(nms->status, Status::xfail);
  EXPECT_EQ(nms->expected_reason, "torch 2.6's nms keeps ties in another order");
  EXPECT_EQ(r.status, Status::xfail);
  EXPECT_TRUE(r.meets_expectations);
}

TEST_F(RunCell, ExpectedFailureThatPassesIsXpass) {
  Cell c = cpu_cell();
  c.expect = {expect("meta", "roi_align", "", "xfail", "no Meta kernel before torch 2.7")};
  script_passing(c);
  const CellResult r = run(c);
  EXPECT_EQ(check(r, "meta", "roi_align")->status, Status::xpass);
  EXPECT_EQ(r.status, Status::xpass);
  EXPECT_FALSE(r.meets_expectations);
}

TEST_F(RunCell, SkipExpectationSkipsTheCheck) {
  Cell c = cpu_cell();
  c.expect = {expect("build", "", "", "skip", "known broken toolchain")};
  script_passing(c);
  engine_->on("build", CannedStep::exits(1, kCompileErrorLog));
  const CellResult r = run(c);
  EXPECT_EQ(check(r, "build")->status, Status::skip);
  EXPECT_EQ(check(r, "build")->message, "skipped as expected: known broken toolchain");
  EXPECT_TRUE(r.meets_expectations);
}

// ---- progress lines -------------------------------------------------------------------

// A step's console line must never call it failed when the results record it as passed.
// Real case: the torchvision registration binary exits 1 when torchvision's C++ library lacks
// a kernel (Meta registered from Python only), which is data for the torchvision check.
TEST_F(RunCell, ProgressNeverSaysFailForAStepRecordedAsPass) {
  const Cell c = cpu_cell();
  script_passing(c);
  CannedStep tv_cpp = CannedStep::exits(1, "[  FAILED  ] OpRegistration.MetaKernel/nms\n");
  tv_cpp.with_file("@gtest_output", gtest_json(torchvision_cpp_tests(false, /*meta_from_cpp=*/false)));
  engine_->on("torchvision-cpp", tv_cpp);
  const CellResult r = run(c);
  ASSERT_TRUE(step(r, "torchvision-cpp"));
  ASSERT_EQ(step(r, "torchvision-cpp")->status, Status::pass);
  ASSERT_EQ(r.status, Status::pass) << all_checks(r);
  for (const auto& [id, line] : progress_) EXPECT_EQ(id, c.id);

  // Before the registry refactor (a27c159) this failed: "torchvision-cpp fail (0.5 s)" on the
  // console, pass in the results. Fixed by fcd7783; a hard check from then on.
  EXPECT_TRUE(progress_contradictions(r).empty()) << "progress lines:\n" << progress_text();
}

TEST_F(RunCell, ProgressNamesEveryStepOfTheCell) {
  const Cell c = cuda_cell();
  script_passing(c);
  const CellResult r = run(c);
  for (const auto& s : r.steps) {
    bool named = false;
    for (const auto& [id, line] : progress_) named = named || line.rfind(s.name + " ", 0) == 0;
    EXPECT_TRUE(named) << s.name << "\n" << progress_text();
  }
}

// ---------------------------------------------------------------------------------------
// CUDA cell
// ---------------------------------------------------------------------------------------

TEST_F(RunCell, CudaCellRunsItsStepsInOrder) {
  const Cell c = cuda_cell();
  script_passing(c);
  const CellResult r = run(c);
  EXPECT_EQ(ran(), (Steps{"probe", "torchvision", "archs", "nvrtc", "configure", "build", "load", "test",
                                          "fatbin", "torchvision-cpp"}));
  EXPECT_EQ(result_step_names(r), (Steps{"image", "probe", "torchvision", "archs", "nvrtc", "configure", "build",
                                         "load", "test", "fatbin", "torchvision-cpp"}));
  EXPECT_TRUE(engine_->unscripted().empty()) << unscripted_text();
}

TEST_F(RunCell, CudaCellEveryCheckPasses) {
  const Cell c = cuda_cell();
  const CellResult r = run_passing(c);
  EXPECT_EQ(r.status, Status::pass) << all_checks(r);
  EXPECT_TRUE(r.meets_expectations);
  for (const auto& arch : c.cuda_archs)
    for (const char* name : {"arch", "nvrtc", "fatbin"}) {
      const CheckResult* ch = check(r, name, "", arch);
      ASSERT_TRUE(ch) << name << " " << arch << "\n" << all_checks(r);
      EXPECT_EQ(ch->status, Status::pass);
    }
  EXPECT_NE(check(r, "arch", "", "10.0")->message.find("sm_100"), std::string::npos);
  EXPECT_NE(check(r, "build")->message.find("CUDA"), std::string::npos) << check(r, "build")->message;
  EXPECT_EQ(check(r, "device", "nms")->status, Status::pass);
  EXPECT_NE(check(r, "versions")->message.find("nvcc 12.8.93"), std::string::npos) << check(r, "versions")->message;
  EXPECT_TRUE(progress_contradictions(r).empty()) << progress_text();
}

TEST_F(RunCell, CudaCellCommandsAskForCuda) {
  const Cell c = cuda_cell();
  script_passing(c);
  run(c);
  for (const auto& cmd : engine_->commands) EXPECT_EQ(env_of(cmd, "OPMATRIX_EXPECT_CUDA"), "1") << cmd.step;

  const StepCommand* archs = engine_->command("archs");
  EXPECT_EQ(archs->argv, (Steps{"/usr/local/cuda-12.8/bin/nvcc", "--list-gpu-arch"}));
  EXPECT_TRUE(archs->capture_stdout);

  const StepCommand* nvrtc = engine_->command("nvrtc");
  EXPECT_TRUE(nvrtc->capture_stdout);
  EXPECT_TRUE(argv_mentions(*nvrtc, "nvrtc_probe.py"));
  EXPECT_TRUE(has_arg(*nvrtc, "/usr/local/cuda-12.8"));
  for (const auto& a : c.cuda_archs) EXPECT_TRUE(has_arg(*nvrtc, a)) << a;

  const StepCommand* configure = engine_->command("configure");
  EXPECT_TRUE(has_arg(*configure, "-DOPMATRIX_WITH_CUDA=ON"));
  EXPECT_TRUE(has_arg(*configure, "-DOPMATRIX_CUDA_ARCHS=80;90;100"));
  EXPECT_TRUE(has_arg(*configure, "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"));

  const StepCommand* fatbin = engine_->command("fatbin");
  EXPECT_TRUE(fatbin->capture_stdout);
  EXPECT_TRUE(argv_mentions(*fatbin, "fatbin.py"));
  EXPECT_EQ(fatbin->argv.back(), "/build/kernels/libopmatrix_ops.so");

  EXPECT_EQ(env_of(*engine_->command("torchvision-cpp"), "OPMATRIX_EXPECT_CUDA"), "1");
}

// torchvision's C++ registration check expects CUDA kernels when torch has CUDA, whatever the
// cell declares.
TEST_F(RunCell, TorchvisionCppExpectsCudaWhenTorchHasIt) {
  const Cell c = cpu_cell();
  script_passing(c);
  json p = probe_json(c);
  p["torch_cuda"] = "12.6";
  engine_->on("probe", CannedStep::prints(p.dump()));
  run(c);
  ASSERT_TRUE(engine_->command("torchvision-cpp"));
  EXPECT_EQ(env_of(*engine_->command("torchvision-cpp"), "OPMATRIX_EXPECT_CUDA"), "1");
  EXPECT_EQ(env_of(*engine_->command("build"), "OPMATRIX_EXPECT_CUDA"), "0");
}

TEST_F(RunCell, NoTorchvisionExtensionNoTorchvisionCppStep) {
  const Cell c = cpu_cell();
  script_passing(c);
  json p = probe_json(c);
  p["torchvision_ext"] = nullptr;
  engine_->on("probe", CannedStep::prints(p.dump()));
  const CellResult r = run(c);
  EXPECT_EQ(engine_->command("torchvision-cpp"), nullptr);
  ASSERT_TRUE(check(r, "torchvision"));
  EXPECT_EQ(check(r, "torchvision")->message.find("C++ dlopen view"), std::string::npos);
}

TEST_F(RunCell, ArchNvccCannotTargetFailsAndIsLeftOutOfTheBuild) {
  const Cell c = cuda124_cell();
  script_passing(c);
  const CellResult r = run(c);
  const CheckResult* sm100 = check(r, "arch", "", "10.0");
  ASSERT_TRUE(sm100 && sm100->diagnosis) << all_checks(r);
  EXPECT_EQ(sm100->status, Status::fail);
  EXPECT_EQ(sm100->diagnosis->kind, "unsupported_arch");
  EXPECT_NE(sm100->message.find("nvcc 12.4.131 cannot target sm_100"), std::string::npos) << sm100->message;
  EXPECT_EQ(check(r, "arch", "", "9.0")->status, Status::pass);
  EXPECT_TRUE(has_arg(*engine_->command("configure"), "-DOPMATRIX_CUDA_ARCHS=80;90"));
  EXPECT_EQ(check(r, "nvrtc", "", "10.0")->status, Status::fail);
  EXPECT_EQ(check(r, "fatbin", "", "10.0")->status, Status::fail);
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_FALSE(r.meets_expectations);
}

TEST_F(RunCell, ArchExpectationsTurnTheUnsupportedArchIntoXfail) {
  Cell c = cuda124_cell();
  c.expect = {expect("arch", "", "10.0", "xfail", "CUDA 12.x before 12.8 cannot target sm_100"),
              expect("nvrtc", "", "10.0", "xfail", "NVRTC 12.4 rejects sm_100"),
              expect("fatbin", "", "10.0", "xfail", "no SASS for sm_100")};
  script_passing(c);
  const CellResult r = run(c);
  EXPECT_EQ(check(r, "arch", "", "10.0")->status, Status::xfail);
  EXPECT_EQ(check(r, "arch", "", "10.0")->expected_reason, "CUDA 12.x before 12.8 cannot target sm_100");
  EXPECT_EQ(check(r, "nvrtc", "", "10.0")->status, Status::xfail);
  EXPECT_EQ(check(r, "fatbin", "", "10.0")->status, Status::xfail);
  EXPECT_EQ(check(r, "arch", "", "9.0")->status, Status::pass);
  EXPECT_EQ(r.status, Status::xfail) << all_checks(r);
  EXPECT_TRUE(r.meets_expectations);
}

// nvcc missing from the image: the archs step fails. Its `arch` check says so; the declared
// archs must not each be reported as "nvcc cannot target" (an unsupported_arch finding).
TEST_F(RunCell, ArchsStepThatFailsIsNotAnUnsupportedArchFinding) {
  const Cell c = cuda_cell();
  script_passing(c);
  engine_->on("archs", CannedStep::exits(127, "Error: crun: executable file `/usr/local/cuda-12.8/bin/nvcc` not found: "
                                              "No such file or directory: OCI runtime attempted to invoke a command "
                                              "that was not found\n"));
  const CellResult r = run(c);
  const CheckResult* archs = check(r, "arch");
  ASSERT_TRUE(archs) << all_checks(r);
  EXPECT_TRUE(is_bad(archs->status));
  EXPECT_TRUE(is_bad(r.status));
  std::vector<std::string> claimed;
  for (const auto& arch : c.cuda_archs) {
    const CheckResult* a = check(r, "arch", "", arch);
    if (a && a->diagnosis && a->diagnosis->kind == "unsupported_arch") claimed.push_back(arch);
  }

  EXPECT_TRUE(claimed.empty()) << all_checks(r);
}

TEST_F(RunCell, NvrtcPrintingNoJsonIsAnErrorAndTheBuildGoesOn) {
  const Cell c = cuda_cell();
  const CellResult r =
      run_with_one_step(c, "nvrtc", CannedStep::prints("nvrtc: cannot load libnvrtc-builtins.so.12.8\n"));
  EXPECT_EQ(ran(), (Steps{"probe", "torchvision", "archs", "nvrtc", "configure", "build", "load",
                                          "test", "fatbin", "torchvision-cpp"}));
  const CheckResult* nvrtc = check(r, "nvrtc");
  ASSERT_TRUE(nvrtc) << all_checks(r);
  EXPECT_EQ(nvrtc->status, Status::error);
  EXPECT_NE(nvrtc->message.find("printed no JSON"), std::string::npos) << nvrtc->message;
  EXPECT_FALSE(check(r, "nvrtc", "", "8.0"));
  EXPECT_EQ(check(r, "fatbin", "", "9.0")->status, Status::pass);
  EXPECT_EQ(r.status, Status::error);
}

TEST_F(RunCell, FatbinPrintingNoJsonIsAnError) {
  const Cell c = cuda_cell();
  const CellResult r = run_with_one_step(c, "fatbin", CannedStep::prints(""));
  EXPECT_EQ(ran().back(), "torchvision-cpp");
  const CheckResult* fatbin = check(r, "fatbin");
  ASSERT_TRUE(fatbin) << all_checks(r);
  EXPECT_EQ(fatbin->status, Status::error);
  EXPECT_NE(fatbin->message.find("printed no JSON"), std::string::npos) << fatbin->message;
  EXPECT_EQ(r.status, Status::error);
}

TEST_F(RunCell, CudaCompileErrorSkipsLoadTestAndFatbin) {
  const Cell c = cuda_cell();
  script_passing(c);
  engine_->on("build", CannedStep::exits(1, R"([7/30] Building CUDA object kernels/CMakeFiles/opmatrix_ops.dir/cuda/nms_kernel.cu.o
FAILED: kernels/CMakeFiles/opmatrix_ops.dir/cuda/nms_kernel.cu.o
/src/kernels/cuda/nms_kernel.cu(91): error: identifier "THCCeilDiv" is undefined
1 error detected in the compilation of "/src/kernels/cuda/nms_kernel.cu".
)"));
  const CellResult r = run(c);
  EXPECT_EQ(ran(), (Steps{"probe", "torchvision", "archs", "nvrtc", "configure", "build"}));
  const CheckResult* build = check(r, "build");
  ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
  EXPECT_EQ(build->diagnosis->kind, "compile_error");
  EXPECT_NE(build->message.find("nms_kernel.cu:91"), std::string::npos) << build->message;
  EXPECT_EQ(r.status, Status::fail);
}

// ---------------------------------------------------------------------------------------
// Project cells (docs/projects.md)
// ---------------------------------------------------------------------------------------

TEST_F(RunCell, CmakeProjectRunsItsStepsInOrder) {
  const Cell c = cmake_project_cell();
  script_passing_project(c, {"/build/libboxops.so"});
  const CellResult r = run(c);
  EXPECT_EQ(ran(), (Steps{"probe", "torchvision", "configure", "build", "load", "smoke"}));
  EXPECT_EQ(result_step_names(r),
            (Steps{"image", "probe", "torchvision", "configure", "build", "load", "smoke"}));
  EXPECT_TRUE(engine_->unscripted().empty()) << unscripted_text();
}

TEST_F(RunCell, CmakeProjectEveryCheckPasses) {
  const Cell c = cmake_project_cell();
  script_passing_project(c, {"/build/libboxops.so"});
  const CellResult r = run(c);
  EXPECT_TRUE(engine_->unscripted().empty()) << unscripted_text();
  for (const auto& ch : r.checks) EXPECT_FALSE(is_bad(ch.status)) << all_checks(r);
  EXPECT_EQ(r.status, Status::pass) << all_checks(r);
  EXPECT_TRUE(r.meets_expectations);
  for (const auto& [name, op] : std::vector<std::pair<std::string, std::string>>{
           {"versions", ""}, {"torchvision", ""}, {"build", ""}, {"load", ""}, {"smoke", ""},
           {"registration", "box_area"}, {"meta", "box_area"}, {"registration", "box_iou"}, {"meta", "box_iou"}})
    EXPECT_TRUE(check(r, name, op)) << name << " " << op << "\n" << all_checks(r);
  EXPECT_EQ(check(r, "build")->message, "cmake project examples/boxops built (CPU only)");
  EXPECT_NE(check(r, "load")->message.find("libboxops.so loads"), std::string::npos);
  EXPECT_FALSE(check(r, "correctness", "nms"));
}

TEST_F(RunCell, CmakeProjectCommands) {
  const Cell c = cmake_project_cell();
  script_passing_project(c, {"/build/libboxops.so"});
  run(c);
  const StepCommand* configure = engine_->command("configure");
  EXPECT_TRUE(has_arg(*configure, "/src/examples/boxops"));
  EXPECT_TRUE(has_arg(*configure, "-DOPMATRIX_WITH_CUDA=OFF"));
  EXPECT_EQ(env_of(*configure, "TORCH_CUDA_ARCH_LIST"), "<unset>");
  EXPECT_EQ(engine_->command("build")->argv, (Steps{"cmake", "--build", "/build", "-j", "3"}));

  const StepCommand* load = engine_->command("load");
  const auto ns = std::find(load->argv.begin(), load->argv.end(), "--namespace");
  ASSERT_NE(ns, load->argv.end());
  EXPECT_EQ(*(ns + 1), "boxops");
  const auto ops = std::find(load->argv.begin(), load->argv.end(), "--ops");
  ASSERT_NE(ops, load->argv.end());
  EXPECT_EQ(*(ops + 1), "box_area,box_iou");
  const auto find = std::find(load->argv.begin(), load->argv.end(), "--find");
  ASSERT_NE(find, load->argv.end());
  EXPECT_EQ(*(find + 1), "/build");

  // The smoke command runs from the project's folder, as an argv (never a shell string).
  const StepCommand* smoke = engine_->command("smoke");
  ASSERT_GE(smoke->argv.size(), 2u);
  EXPECT_EQ((Steps(smoke->argv.end() - 2, smoke->argv.end())), (Steps{"python3", "smoke.py"}));
  EXPECT_TRUE(has_arg(*smoke, "/src/examples/boxops"));
  EXPECT_EQ(env_of(*smoke, "OPMATRIX_PROJECT_BUILD"), "/build");
}

TEST_F(RunCell, SetuptoolsCudaProjectStepsAndCommands) {
  const Cell c = setuptools_project_cell();
  const std::string lib = "/build/site/boxops/_C.cpython-311-x86_64-linux-gnu.so";
  script_passing_project(c, {lib});
  const CellResult r = run(c);
  EXPECT_EQ(ran(),
            (Steps{"probe", "torchvision", "archs", "nvrtc", "build", "load", "smoke", "fatbin"}));
  EXPECT_EQ(result_step_names(r),
            (Steps{"image", "probe", "torchvision", "archs", "nvrtc", "build", "load", "smoke", "fatbin"}));
  EXPECT_TRUE(engine_->unscripted().empty()) << unscripted_text();

  // Built as users get it: a wheel (build_wheel.py SOURCE BUILD), installed into /build/site.
  const StepCommand* build = engine_->command("build");
  EXPECT_TRUE(argv_mentions(*build, "build_wheel.py"));
  EXPECT_TRUE(has_arg(*build, "/src/examples/boxops"));
  EXPECT_EQ(build->argv.back(), "/build");
  EXPECT_TRUE(build->capture_stdout);
  EXPECT_EQ(env_of(*build, "FORCE_CUDA"), "1");
  EXPECT_EQ(env_of(*build, "MAX_JOBS"), "3");
  // A pip its setup.py runs installs into the cell's Python as a user's does (PEP 668 in Debian's).
  EXPECT_EQ(env_of(*build, "PIP_BREAK_SYSTEM_PACKAGES"), "1");
  // Only the archs this nvcc can target (sm_100 is not, on 12.4).
  EXPECT_EQ(env_of(*build, "TORCH_CUDA_ARCH_LIST"), "8.0;9.0");
  EXPECT_EQ(env_of(*build, "OPMATRIX_EXPECT_CUDA"), "1");
  EXPECT_EQ(engine_->command("fatbin")->argv.back(), lib);

  // Every step after the build sees the installed wheel, then the project's own requirements.
  const StepCommand* load = engine_->command("load");
  const auto find = std::find(load->argv.begin(), load->argv.end(), "--find");
  ASSERT_NE(find, load->argv.end());
  EXPECT_EQ(*(find + 1), "/build/site");
  EXPECT_EQ(env_of(*load, "PYTHONPATH"), "/build/site:/build/deps");
  // ... and finds by name the shared libraries pip would have put in the environment's lib folder.
  EXPECT_EQ(env_of(*load, "LD_LIBRARY_PATH"), "/build/deps-data/lib");
  const StepCommand* smoke = engine_->command("smoke");
  EXPECT_EQ(env_of(*smoke, "OPMATRIX_PROJECT_BUILD"), "/build/site");
  EXPECT_EQ(env_of(*smoke, "PYTHONPATH"), "/build/site:/build/deps");
  // The smoke runs from a copy of the project's folder without what the wheel installed.
  EXPECT_TRUE(argv_mentions(*smoke, "run_tests.py"));
  const auto source = std::find(smoke->argv.begin(), smoke->argv.end(), "--source");
  ASSERT_NE(source, smoke->argv.end());
  EXPECT_EQ(*(source + 1), "/src/examples/boxops");
  EXPECT_TRUE(has_arg(*smoke, "--site"));
  const auto dashes = std::find(smoke->argv.begin(), smoke->argv.end(), "--");
  ASSERT_NE(dashes, smoke->argv.end());
  EXPECT_EQ(std::vector<std::string>(dashes + 1, smoke->argv.end()), c.project->smoke);

  // The script check gets the built libraries and the folders to look in.
  const StepCommand* dup = engine_->command("duplicate-extensions");
  ASSERT_TRUE(dup);
  EXPECT_TRUE(dup->capture_stdout);
  EXPECT_TRUE(argv_mentions(*dup, "duplicate_extensions.py"));
  EXPECT_EQ(dup->argv.back(), lib);
  EXPECT_EQ(env_of(*dup, "OPMATRIX_BUILD"), "/build");
  EXPECT_EQ(env_of(*dup, "OPMATRIX_PROJECT_DIR"), "/src/examples/boxops");
  EXPECT_EQ(env_of(*dup, "OPMATRIX_EXPECT_CUDA"), "1");
}

// Every script check of the registry runs once per built cell where it applies (stable-abi:
// our kernels only), recorded in registry order (those that share a container run together at
// the first one's turn), after the built-in steps and before the closing ones (fatbin,
// torchvision-cpp); none without a build.
TEST_F(RunCell, ScriptChecksRunAfterTheBuildBeforeTheClosingSteps) {
  Steps scripts = script_check_steps();
  auto positions = [&](const Steps& all) {
    std::vector<std::size_t> at;
    for (const auto& name : scripts) {
      EXPECT_EQ(std::count(all.begin(), all.end(), name), 1) << name << " in " << ::testing::PrintToString(all);
      at.push_back(static_cast<std::size_t>(std::find(all.begin(), all.end(), name) - all.begin()));
    }
    EXPECT_TRUE(std::is_sorted(at.begin(), at.end())) << ::testing::PrintToString(all);
    return at;
  };
  auto index = [](const Steps& all, const std::string& name) {
    return static_cast<std::size_t>(std::find(all.begin(), all.end(), name) - all.begin());
  };
  {
    const Cell c = cuda_cell();
    script_passing(c);
    const Steps all = testbed::members_of(run(c).steps, &StepResult::name);
    for (std::size_t at : positions(all)) {
      EXPECT_GT(at, index(all, "test"));
      EXPECT_LT(at, index(all, "fatbin"));
      EXPECT_LT(at, index(all, "torchvision-cpp"));
    }
  }
  {
    const Cell c = setuptools_project_cell();
    script_passing_project(c, {"/build/site/boxops/_C.cpython-311-x86_64-linux-gnu.so"});
    const Steps all = testbed::members_of(run(c).steps, &StepResult::name);
    EXPECT_EQ(std::count(all.begin(), all.end(), "stable-abi"), 0);
    scripts = script_check_steps(/*project=*/true);
    for (std::size_t at : positions(all)) {
      EXPECT_GT(at, index(all, "smoke"));
      EXPECT_LT(at, index(all, "fatbin"));
    }
  }
  {
    const Cell c = cpu_cell();
    script_passing(c);
    engine_->on("build", CannedStep::exits(1, kCompileErrorLog));
    run(c);
    for (const auto& name : script_check_steps()) EXPECT_FALSE(engine_->command(name)) << name;
  }
}

// The steps that only read what the build left (shares_container) run in one container: one
// run_steps.py command naming each with its own argv and timeout; each step's result, log and
// reproduction command stay its own. Where that container fails, each runs alone, once.
TEST_F(RunCell, StepsThatShareAContainerRunInOneAndKeepTheirOwnResults) {
  const Cell c = cpu_cell();
  script_passing(c);
  engine_->on("wheel", CannedStep::prints(R"({"checks": []})", "wheel: read 1 wheel\n"));
  const CellResult r = run(c);
  ASSERT_EQ(engine_->shared_commands.size(), 1u);
  const StepCommand& shared = engine_->shared_commands.front();
  EXPECT_TRUE(argv_mentions(shared, "run_steps.py"));
  std::vector<std::string> members;
  for (const auto& m : json::parse(shared.argv.back())) {
    members.push_back(m["step"].get<std::string>());
    EXPECT_EQ(m["timeout_s"].get<double>(), step_timeout(c, members.back())) << members.back();
  }
  EXPECT_EQ(members, (std::vector<std::string>{"duplicate-extensions", "cxx11-abi", "wheel", "abi3"}));
  EXPECT_EQ(read_text_file(settings_.results_dir + "/logs/" + c.id + "/wheel.log"), "wheel: read 1 wheel\n");
  const StepResult* wheel = step(r, "wheel");
  ASSERT_TRUE(wheel);
  EXPECT_EQ(wheel->status, Status::pass);
  EXPECT_TRUE(wheel->command.find("wheel_metadata.py") != std::string::npos) << wheel->command;
  EXPECT_TRUE(wheel->command.find("run_steps.py") == std::string::npos) << wheel->command;

  // A shared container that fails as a whole (it prints no JSON): each step runs alone.
  engine_->clear_records();
  engine_->shared_commands.clear();
  engine_->fail_shared_steps = true;
  run(c);
  EXPECT_EQ(engine_->shared_commands.size(), 1u);
  for (const auto& name : members) EXPECT_EQ(engine_->commands_for(name).size(), 1u) << name;
}

// setup.py enables CUDA only when a GPU is visible: on a build machine the "CUDA" build holds
// no device code. That is the build's failure, not one finding per arch.
TEST_F(RunCell, CudaProjectBuiltWithoutDeviceCodeFailsItsBuild) {
  const Cell c = setuptools_project_cell();
  const std::string lib = "/build/site/boxops/_C.cpython-311-x86_64-linux-gnu.so";
  script_passing_project(c, {lib});
  json ops = {{"box_area", kernel_row(true, false, true, true)}, {"box_iou", kernel_row(true, false, true, true)}};
  engine_->on("load", CannedStep::prints(load_json(c, {lib}, "boxops", ops).dump()));
  engine_->on("fatbin", lib, CannedStep::prints(fatbin_json(c, lib, {}, {}).dump()));
  const CellResult r = run(c);
  const CheckResult* build = check(r, "build");
  ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
  EXPECT_EQ(build->status, Status::fail);
  EXPECT_EQ(build->diagnosis->kind, "built_cpu_only");
  // What follows from it is not reported again as findings of their own.
  EXPECT_EQ(check(r, "fatbin", "", "9.0")->status, Status::skip);
  EXPECT_EQ(check(r, "registration", "box_iou")->status, Status::skip);
  EXPECT_EQ(r.status, Status::fail) << all_checks(r);
}

// extension-cpp's habit: CUDA only where torch.cuda.is_available() at build time. Where the build
// sees no GPU, the cell cannot see what a GPU host builds: a limit, the CPU part still judged;
// where it sees one and still builds CPU-only, the red of the test above.
TEST_F(RunCell, CudaBuildGatedOnAVisibleGpuIsNotCheckedWhereTheBuildSeesNone) {
  project_file("setup.py", "import torch\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                           "use_cuda = torch.cuda.is_available()\n");
  const Cell c = setuptools_project_cell();
  const std::string lib = "/build/site/boxops/_C.cpython-311-x86_64-linux-gnu.so";
  for (const bool gpu : {false, true}) {
    script_passing_project(c, {lib});
    json probe = probe_json(c);
    probe["gpus"] = gpu ? json::array({"9.0"}) : json::array();
    engine_->on("probe", CannedStep::prints(probe.dump() + "\n"));
    json ops = {{"box_area", kernel_row(true, false, true, true)}, {"box_iou", kernel_row(true, false, true, true)}};
    engine_->on("load", CannedStep::prints(load_json(c, {lib}, "boxops", ops).dump()));
    engine_->on("fatbin", lib, CannedStep::prints(fatbin_json(c, lib, {}, {}).dump()));
    const CellResult r = run(c);
    const CheckResult* build = check(r, "build");
    ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
    EXPECT_EQ(build->status, gpu ? Status::fail : Status::skip) << build->message;
    EXPECT_EQ(build->diagnosis->kind, gpu ? "built_cpu_only" : "cuda_build_needs_gpu");
    EXPECT_EQ(build->diagnosis->evidence, "setup.py: use_cuda = torch.cuda.is_available()");
    EXPECT_EQ(check(r, "registration", "box_iou")->status, Status::skip);
    EXPECT_EQ(r.meets_expectations, !gpu) << all_checks(r);
  }
}

// Deformable-DETR's setup.py raises without a visible GPU: where the build sees none, nothing is
// built and nothing is judged (not the library's break in this torch), and the run meets it.
TEST_F(RunCell, SetupPyThatRefusesWithoutAGpuIsNotCheckedWhereTheBuildSeesNone) {
  const Cell c = setuptools_project_cell();
  const CellResult r = run_project_with_failing_build(c, "Traceback (most recent call last):\n"
                                            "  File \"/build/src/setup.py\", line 28, in extensions\n"
                                            "    raise NotImplementedError(\"Cuda is not availabel\")\n"
                                            "NotImplementedError: Cuda is not availabel\n");
  const CheckResult* build = build_not_checked(r, "setup_needs_gpu");
  ASSERT_TRUE(build) << all_checks(r);
  EXPECT_EQ(build->message.rfind("not checked here: setup.py refuses to build without a visible GPU", 0), 0u)
      << build->message;
  EXPECT_TRUE(r.meets_expectations) << all_checks(r);
}

// warp-rna 0.3.0's setup.py raises in words that do not say CUDA (`if not
// torch.cuda.is_available():` then `raise Exception("CPU version is not implemented")`): beside a
// CUDA torch and its nvcc, a build that sees no GPU refuses for want of one, which the condition
// over the raise says; the same raise under any other condition stays the library's red.
TEST_F(RunCell, SetupPyRaisingUnderATestOfAVisibleGpuIsNotCheckedWhereTheBuildSeesNone) {
  const Cell c = setuptools_project_cell();
  const std::string log = "Traceback (most recent call last):\n"
                          "  File \"/build/src/setup.py\", line 5, in <module>\n"
                          "    raise Exception(\"CPU version is not implemented\")\n"
                          "Exception: CPU version is not implemented\nerror: metadata-generation-failed\n";
  for (const bool gated : {true, false}) {
    project_file("setup.py", std::string("import torch\n\n") +
                                 (gated ? "if not torch.cuda.is_available():\n" : "if torch.__version__ < '1.0':\n") +
                                 "    # the fallback\n    raise Exception(\"CPU version is not implemented\")\n");
    const CellResult r = run_project_with_failing_build(c, log);
    const CheckResult* build = check(r, "build");
    ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
    EXPECT_EQ(build->status, gated ? Status::skip : Status::fail) << build->message;
    EXPECT_EQ(build->diagnosis->kind, gated ? "setup_needs_gpu" : "setup_py_raised");
    if (gated)
      EXPECT_EQ(build->message, "not checked here: setup.py refuses to build without a visible GPU (it tests "
                                "torch.cuda.is_available() at build time): setup.py:3 `if not "
                                "torch.cuda.is_available():`, then setup.py:5 (<module>): `raise Exception(\"CPU "
                                "version is not implemented\")` raised Exception: CPU version is not implemented; this "
                                "cell's build sees no GPU");
  }
}

// Pointnet2_PyTorch's pointnet2_ops (a CUDAExtension only), causal-conv1d (its nvcc version
// probe) and warp-rnnt (its setup.py refuses a CPU build) in a CPU runtime: a CUDA-only build,
// not checked here; any other failure stays red.
TEST_F(RunCell, CudaOnlyBuildInARuntimeWithoutCudaIsNotCheckedHere) {
  Cell c = cpu_cell();
  c.project = project("setuptools", {});
  const std::pair<const char*, Status> cases[] = {
      {"      OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n", Status::skip},
      {"      NameError: name 'bare_metal_version' is not defined\n", Status::skip},
      // warp-rnnt 0.7.0's setup.py: `raise Exception("CPU version is not implemented")`.
      {"      Exception: CPU version is not implemented\n", Status::skip},
      // deep-ep 1.0.0's setup.py looks for NVSHMEM, a CUDA library.
      {"      AssertionError: Failed to find NVSHMEM\n", Status::skip},
      // mamba-ssm 2.3.2: its own warning that nvcc is missing, then a CPU torch's None version.
      {"      <string>:118: UserWarning: mamba_ssm was requested, but nvcc was not found.  Are you sure your "
       "environment has nvcc available?\n      TypeError: expected string or bytes-like object, got 'NoneType'\n",
       Status::skip},
      {"      ModuleNotFoundError: No module named 'ninja'\n", Status::fail},
      // A CPU source that does not compile stays red, whatever its file is called.
      {"      subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1. "
       "(src/rnnt_cpu.cpp)\n", Status::fail}};
  for (const auto& [exception, status] : cases) {
    const CellResult r = run_project_with_failing_build(c, std::string("Traceback (most recent call last):\n"
                                                          "  File \"<string>\", line 182, in <module>\n") +
                                                  exception + "error: metadata-generation-failed\n");
    const CheckResult* build = check(r, "build");
    ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
    EXPECT_EQ(build->status, status) << build->message;
    if (status == Status::skip) {
      EXPECT_EQ(build->diagnosis->kind, "needs_cuda_to_build");
      EXPECT_NE(build->message.find("a CUDA-only build"), std::string::npos) << build->message;
      EXPECT_TRUE(r.meets_expectations) << all_checks(r);
    }
  }
  const CellResult mamba_run = run_project_with_failing_build(
      c, "      UserWarning: mamba_ssm was requested, but nvcc was not found.\n      TypeError: expected string or "
         "bytes-like object, got 'NoneType'\nerror: metadata-generation-failed\n");
  const CheckResult* mamba = check(mamba_run, "build");
  ASSERT_TRUE(mamba);
  EXPECT_NE(mamba->message.find("mamba_ssm was requested, but nvcc was not found.; then TypeError"), std::string::npos)
      << mamba->message;
  // A refusal that names its own switch for a build without CUDA (stable-fast 1.0.5): not
  // "CUDA-only"; the switch said, as its users would type it.
  const CellResult switch_run = run_project_with_failing_build(
      c, "      AssertionError: Cannot find CUDA installation. If you want to compile without CUDA, set `WITH_CUDA=0`.\n"
         "error: metadata-generation-failed\n");
  const CheckResult* with_switch = check(switch_run, "build");
  ASSERT_TRUE(with_switch && with_switch->diagnosis);
  EXPECT_EQ(with_switch->status, Status::skip);
  EXPECT_EQ(with_switch->diagnosis->kind, "needs_cuda_to_build");
  EXPECT_EQ(with_switch->message.find("CUDA-only"), std::string::npos) << with_switch->message;
  EXPECT_NE(with_switch->message.find("its users' to ask for (WITH_CUDA=0)"), std::string::npos) << with_switch->message;
  EXPECT_NE(with_switch->diagnosis->fix.find("WITH_CUDA=0 pip install"), std::string::npos) << with_switch->diagnosis->fix;
  // The same words before a compile that fails: the compile is the red.
  const CellResult compiled_run = run_project_with_failing_build(
      c, "      UserWarning: x was requested, but nvcc was not found.\nsrc/a.cpp:3:5: error: 'foo' was not declared in "
         "this scope\n      RuntimeError: Error compiling objects for extension\n");
  const CheckResult* compiled = check(compiled_run, "build");
  ASSERT_TRUE(compiled);
  EXPECT_EQ(compiled->status, Status::fail) << compiled->message;
}

// torchsparse needs google/dense_hash_map (libsparsehash-dev) beside torch: a system header no part
// of the cell has is "not checked here"; a torch header this torch lacks (TH/TH.h) stays red.
TEST_F(RunCell, ASystemHeaderTheImageLacksIsNotCheckedHereATorchHeaderIsRed) {
  project_file("csrc/hashmap.hpp", "#include <google/dense_hash_map>\n");
  Cell c = cpu_cell();
  c.project = project("setuptools", {});
  const std::pair<const char*, Status> cases[] = {{"google/dense_hash_map", Status::skip}, {"TH/TH.h", Status::fail},
                                                  {"hashmap.hpp", Status::fail}};
  for (const auto& [header, status] : cases) {
    const CellResult r = run_project_with_failing_build(c, std::string("csrc/a.cpp:7:10: fatal error: ") + header +
                                                  ": No such file or directory\n");
    const CheckResult* build = check(r, "build");
    ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
    EXPECT_EQ(build->status, status) << header << ": " << build->message;
    if (status == Status::skip) {
      EXPECT_EQ(build->diagnosis->kind, "needs_system_headers");
      EXPECT_NE(build->message.find("needs the system header google/dense_hash_map"), std::string::npos);
    }
  }
}

// mpi4torch 0.1.3 compiles with MPI's mpicc, which the image lacks: a system program, not checked
// here; a compiler of the toolchain every image has, missing, is the image's gap.
TEST_F(RunCell, ASystemProgramTheImageLacksIsNotCheckedHereAToolchainProgramIsTheImagesGap) {
  Cell c = cpu_cell();
  c.project = project("setuptools", {});
  const std::pair<const char*, Status> cases[] = {{"mpicc", Status::skip}, {"g++", Status::error}};
  for (const auto& [program, status] : cases) {
    const CellResult r = run_project_with_failing_build(
        c, std::string("      ccache: error: Could not find compiler \"") + program + "\" in PATH\n      error: "
           "command '/usr/bin/ccache' failed with exit code 1\n");
    const CheckResult* build = check(r, "build");
    ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
    EXPECT_EQ(build->status, status) << program << ": " << build->message;
    EXPECT_NE(build->message.find(program), std::string::npos) << build->message;
    if (status == Status::skip) {
      EXPECT_EQ(build->diagnosis->kind, "needs_system_program");
      EXPECT_NE(build->diagnosis->fix.find("apt-file search bin/mpicc"), std::string::npos) << build->diagnosis->fix;
    }
  }
}

// moolib 0.0.9b0: setup.py runs CMake, whose tensorpipe calls find_package(CUDA) unless USE_CUDA
// is off, in a runtime without CUDA. Its default build is CUDA's; the switch its setup.py reads is
// named. Without such a switch, a CUDA-only build (nvcc missing by name, too); another CMake error
// stays red.
TEST_F(RunCell, CMakeFindingNoCudaInARuntimeWithoutCudaIsNotCheckedHere) {
  Cell c = cpu_cell();
  c.project = project("setuptools", {});
  const std::string find_cuda =
      "      CMake Error at /usr/share/cmake-3.31/Modules/FindCUDA.cmake:883 (message):\n        Specify "
      "CUDA_TOOLKIT_ROOT_DIR\n      Call Stack (most recent call first):\n        "
      "src/tensorpipe/tensorpipe/CMakeLists.txt:70 (find_package)\n      \n      -- Configuring incomplete\n";
  const CellResult plain = run_project_with_failing_build(c, find_cuda);
  const CheckResult* only = check(plain, "build");
  ASSERT_TRUE(only && only->diagnosis) << all_checks(plain);
  EXPECT_EQ(only->status, Status::skip) << only->message;
  EXPECT_EQ(only->diagnosis->kind, "needs_cuda_to_build");
  EXPECT_NE(only->message.find("a CUDA-only build (it stops without a CUDA toolkit: CMake configuration failed "
                               "at /usr/share/cmake-3.31/Modules/FindCUDA.cmake:883: Specify CUDA_TOOLKIT_ROOT_DIR)"),
            std::string::npos) << only->message;

  project_file("setup.py", "import os\n\nuse_cuda = os.environ.get(\"USE_CUDA\", True)\ncuda_home = "
                           "os.environ.get(\"CUDA_HOME\")\n");
  const CellResult switched = run_project_with_failing_build(c, find_cuda);
  const CheckResult* with_switch = check(switched, "build");
  ASSERT_TRUE(with_switch && with_switch->diagnosis);
  EXPECT_EQ(with_switch->status, Status::skip);
  EXPECT_EQ(with_switch->message.find("CUDA-only"), std::string::npos) << with_switch->message;
  EXPECT_NE(with_switch->message.find("its users' to ask for (setup.py:3 `use_cuda = os.environ.get(\"USE_CUDA\", "
                                      "True)`)"), std::string::npos) << with_switch->message;

  // nvcc run by name and not there is the same answer, not a system program to install.
  const CellResult by_name = run_project_with_failing_build(
      c, "      error: command 'nvcc' failed: No such file or directory\n");
  const CheckResult* nvcc = check(by_name, "build");
  ASSERT_TRUE(nvcc && nvcc->diagnosis);
  EXPECT_EQ(nvcc->status, Status::skip) << nvcc->message;
  EXPECT_EQ(nvcc->diagnosis->kind, "needs_cuda_to_build") << nvcc->message;

  const CellResult other = run_project_with_failing_build(
      c, "      CMake Error at CMakeLists.txt:12 (find_package):\n        Could not find a package configuration file "
         "provided by \"fmt\"\n");
  const CheckResult* red = check(other, "build");
  ASSERT_TRUE(red && red->diagnosis);
  EXPECT_EQ(red->status, Status::fail) << red->message;
  EXPECT_EQ(red->diagnosis->kind, "configure_error");
}

// pytorch-quantization 2.2.1's sdist on PyPI is a placeholder: its setup.py raises, saying the
// package is on NVIDIA's index. The run asked the wrong index: an error, never the library's red.
TEST_F(RunCell, APlaceholderSdistPointingToAnotherIndexIsNotTheLibrarysRed) {
  Cell c = cpu_cell();
  c.project = project("setuptools", {});
  const CellResult r = run_project_with_failing_build(
      c, "      RuntimeError:\n      ####\n      The package you are trying to install is only a placeholder project "
         "on PyPI.org repository.\n      This package is hosted on NVIDIA Python Package Index.\n      \n      This "
         "package can be installed as:\n      ```\n      $ pip install --no-cache-dir --extra-index-url "
         "https://pypi.nvidia.com pytorch-quantization\n      ```\nerror: metadata-generation-failed\n");
  const CheckResult* build = check(r, "build");
  ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
  EXPECT_EQ(build->status, Status::error);
  EXPECT_EQ(build->diagnosis->kind, "index_elsewhere");
  EXPECT_EQ(build->message, "not checked: this sdist is a placeholder on PyPI, whose setup.py stops saying the package "
                            "is on https://pypi.nvidia.com, an index this run does not reach");
}

// haste-pytorch 0.5.0rc0 (a CppExtension that includes CUDA's headers and links cudart) and diso
// 0.1.4 (its path without CUDA compiles a file that includes cuda_runtime.h) in a CPU runtime: their
// sources need the CUDA toolkit, a CUDA-only build, not checked here; a header of the project's own
// tree named like one stays red.
TEST_F(RunCell, SourcesNeedingTheCudaToolkitInARuntimeWithoutCudaAreNotCheckedHere) {
  project_file("src/mine/cuda_helpers.h", "#pragma once\n");
  Cell c = cpu_cell();
  c.project = project("setuptools", {});
  const std::pair<const char*, Status> cases[] = {
      {"/usr/lib/python3/dist-packages/torch/include/ATen/cuda/CUDAContextLight.h:6:10: fatal error: "
       "cuda_runtime_api.h: No such file or directory\n", Status::skip},
      {"src/cumc.h:2:10: fatal error: cuda_runtime.h: No such file or directory\n", Status::skip},
      {"src/a.cpp:3:10: fatal error: thrust/device_vector.h: No such file or directory\n", Status::skip},
      {"src/a.cpp:3:10: fatal error: cuda_helpers.h: No such file or directory\n", Status::fail}};
  for (const auto& [error, status] : cases) {
    const CellResult r = run_project_with_failing_build(c, error);
    const CheckResult* build = check(r, "build");
    ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
    EXPECT_EQ(build->status, status) << build->message;
    if (status == Status::skip) {
      EXPECT_EQ(build->diagnosis->kind, "needs_cuda_to_build");
      EXPECT_NE(build->message.find("a CUDA-only build (its sources need the CUDA toolkit's "), std::string::npos)
          << build->message;
    }
  }
}

// lrn-sparseatt's requires-python >=3.13 in a Python 3.11 image: pip refuses it before building,
// what the cell lacks (a Python the project supports), "not checked here".
TEST_F(RunCell, AProjectThatDoesNotSupportTheCellsPythonIsNotCheckedHere) {
  Cell c = cpu_cell();
  c.project = project("setuptools", {});
  const CellResult r = run_project_with_failing_build(
      c, "Processing ./src\n  Preparing metadata (pyproject.toml): finished with status 'done'\nERROR: Package "
         "'lrn-sparseatt' requires a different Python: 3.11.2 not in '>=3.13'\n");
  const CheckResult* build = build_not_checked(r, "python_not_supported");
  ASSERT_TRUE(build) << all_checks(r);
  EXPECT_EQ(build->message, "not checked here: the project does not support this cell's Python (Package "
                            "'lrn-sparseatt' requires a different Python: 3.11.2 not in '>=3.13')");
  EXPECT_TRUE(r.meets_expectations);
}

// Pointnet2_PyTorch's setup.py sets TORCH_CUDA_ARCH_LIST = "3.7+PTX;…" itself; CUDA 13 refuses
// compute_37. A true red, whose fix is the project's line, not the cell's cuda_archs.
TEST_F(RunCell, AnArchTheProjectAsksForItselfNamesItsLine) {
  project_file("setup.py", "import os\n\nos.environ[\"TORCH_CUDA_ARCH_LIST\"] = \"3.7+PTX;5.0;7.5\"\n");
  const Cell c = setuptools_project_cell();
  const CellResult r = run_project_with_failing_build(c, "nvcc fatal   : Unsupported gpu architecture 'compute_37'\n");
  const CheckResult* build = check(r, "build");
  ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
  EXPECT_EQ(build->status, Status::fail);
  EXPECT_EQ(build->diagnosis->kind, "unsupported_arch");
  EXPECT_EQ(build->diagnosis->evidence, "setup.py:3: os.environ[\"TORCH_CUDA_ARCH_LIST\"] = \"3.7+PTX;5.0;7.5\"");
  EXPECT_NE(build->diagnosis->fix.find("the project asks for sm_37 itself (setup.py:3:"), std::string::npos)
      << build->diagnosis->fix;
}

// rotary-emb 0.5.2 sets a default TORCH_CUDA_ARCH_LIST only where it is unset (the cell sets it)
// and appends its own `-gencode arch=compute_70,code=sm_70`, which CUDA 13 refuses: its flag's
// line is named, not the list that did not apply.
TEST_F(RunCell, AnArchTheProjectsOwnFlagAsksForNamesThatFlagsLine) {
  project_file("setup.py", "import os\nif os.environ.get(\"TORCH_CUDA_ARCH_LIST\", None) is None:\n    "
                           "os.environ[\"TORCH_CUDA_ARCH_LIST\"] = \"6.0;7.0;8.0\"\ncc_flag = [\"-gencode\"]\n"
                           "cc_flag.append(\"arch=compute_70,code=sm_70\")\n");
  const Cell c = setuptools_project_cell();
  const CellResult r = run_project_with_failing_build(c, "nvcc fatal   : Unsupported gpu architecture 'compute_70'\n");
  const CheckResult* build = check(r, "build");
  ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
  EXPECT_EQ(build->status, Status::fail);
  EXPECT_EQ(build->diagnosis->evidence, "setup.py:5: cc_flag.append(\"arch=compute_70,code=sm_70\")");
  EXPECT_NE(build->diagnosis->fix.find("the project asks for sm_70 itself (setup.py:5:"), std::string::npos)
      << build->diagnosis->fix;
}

// torch_cluster's rw_cuda.cu includes curand.h; the PyPI image's toolkit, assembled from wheels,
// has no cuRAND: the image's gap, an infrastructure error, never the library's red.
TEST_F(RunCell, ACudaLibraryHeaderTheImagesToolkitLacksIsTheImages) {
  const Cell c = setuptools_project_cell();
  const CellResult r =
      run_project_with_failing_build(c, "csrc/cuda/rw_cuda.cu:4:10: fatal error: curand.h: No such file or directory\n");
  const CheckResult* build = check(r, "build");
  ASSERT_TRUE(build && build->diagnosis) << all_checks(r);
  EXPECT_EQ(build->status, Status::error);
  EXPECT_EQ(build->diagnosis->kind, "image_missing_prerequisite");
  EXPECT_EQ(build->message.rfind("this cell's CUDA toolkit lacks curand.h", 0), 0u) << build->message;
}

// causal-conv1d's setup.py downloads a prebuilt wheel first and builds only on an HTTP error; a
// cell builds without network: "not checked here", never the library's red.
TEST_F(RunCell, ABuildThatReachesForTheNetworkIsNotCheckedHere) {
  const Cell c = setuptools_project_cell();
  const CellResult r = run_project_with_failing_build(c, "      Guessing wheel URL:  https://github.com/x/y/releases/download/v1/"
                                            "y-1+cu13torch2.15-cp311-cp311-linux_x86_64.whl\n      error: <urlopen "
                                            "error [Errno -3] Temporary failure in name resolution>\n");
  const CheckResult* build = build_not_checked(r, "build_needs_network");
  ASSERT_TRUE(build) << all_checks(r);
  EXPECT_TRUE(r.meets_expectations);
  // kaldifeat 1.24 and fast-rnnt 1.3: CMake's FetchContent downloads pybind11 from GitHub.
  const CellResult cmake = run_project_with_failing_build(
      c, "      CMake Error at pybind11-subbuild/…/download-pybind11-populate.cmake:163 (message):\n        Each "
         "download failed!\n          error: downloading 'https://github.com/pybind/pybind11/archive/v2.6.0.tar.gz' "
         "failed\n      Build fast_rnnt failed. Please check the error message.\n");
  const CheckResult* fetched = build_not_checked(cmake, "build_needs_network");
  ASSERT_TRUE(fetched) << all_checks(cmake);
  EXPECT_NE(fetched->message.find("CMake downloads https://github.com/pybind/pybind11/archive/v2.6.0.tar.gz"),
            std::string::npos) << fetched->message;
  EXPECT_NE(fetched->diagnosis->fix.find("FETCHCONTENT_SOURCE_DIR_"), std::string::npos);
  // A legacy setup.py's setup_requires that the project's requirements do not hold: setuptools
  // fetches it with pip while it builds (a user's, from PyPI); what it asks for is named.
  const CellResult eggs = run_project_with_failing_build(
      c, "      ERROR: Could not find a version that satisfies the requirement cython (from versions: none)\n"
         "      distutils.errors.DistutilsError: Command '['/usr/bin/python3', '-m', 'pip', "
         "'--disable-pip-version-check', 'wheel', '--no-deps', '-w', '/tmp/tmpl_83e4x2', '--quiet', 'cython']' "
         "returned non-zero exit status 1.\n");
  const CheckResult* setup_requires = build_not_checked(eggs, "build_needs_network");
  ASSERT_TRUE(setup_requires) << all_checks(eggs);
  EXPECT_NE(setup_requires->message.find("setuptools fetches setup.py's setup_requires cython with pip while it builds"),
            std::string::npos) << setup_requires->message;
  EXPECT_NE(setup_requires->diagnosis->fix.find("[build-system] requires"), std::string::npos);
}

// pytorch/ao #1981: a stale _C.cpython-310-*.so next to the fresh _C.abi3.so.
TEST_F(RunCell, DuplicateExtensionFindingIsAFailedCheck) {
  const Cell c = setuptools_project_cell();
  const std::string lib = "/build/site/boxops/_C.abi3.so";
  script_passing_project(c, {lib});
  const std::string message = "_C exists 2 times in /build/site/boxops: _C.abi3.so, _C.cpython-310-x86_64-linux-gnu.so; "
                              "this Python (3.11.2) imports _C.abi3.so";
  json report = {{"checks", json::array({{{"check", "duplicate_extension"}, {"status", "fail"}, {"message", message},
                                          {"diagnosis", {{"kind", "duplicate_extension"},
                                                         {"summary", message + "; the stale one can be imported"},
                                                         {"fix", "delete the stale builds"},
                                                         {"evidence", "/build/site/boxops/_C.abi3.so"}}}}})}};
  engine_->on("duplicate-extensions", CannedStep::prints(report.dump() + "\n"));
  const CellResult r = run(c);
  const CheckResult* dup = check(r, "duplicate_extension");
  ASSERT_TRUE(dup && dup->diagnosis) << all_checks(r);
  EXPECT_EQ(dup->status, Status::fail);
  EXPECT_EQ(dup->message, message);
  EXPECT_EQ(dup->diagnosis->kind, "duplicate_extension");
  EXPECT_FALSE(dup->diagnosis->repro.empty());
  // The closing steps still run.
  EXPECT_EQ(ran().back(), "fatbin");
  EXPECT_EQ(r.status, Status::fail);
}

TEST_F(RunCell, ScriptCheckPrintingNoJsonIsAnError) {
  const Cell c = cpu_cell();
  const CellResult r =
      run_with_one_step(c, "duplicate-extensions", CannedStep::prints("Traceback (most recent call last):\n"));
  const CheckResult* dup = check(r, "duplicate_extension");
  ASSERT_TRUE(dup) << all_checks(r);
  EXPECT_EQ(dup->status, Status::error);
  EXPECT_NE(dup->message.find("printed no JSON"), std::string::npos) << dup->message;
  EXPECT_EQ(ran().back(), "torchvision-cpp");
}

TEST_F(RunCell, SetuptoolsCudaProjectMeetsItsExpectations) {
  const Cell c = setuptools_project_cell();
  script_passing_project(c, {"/build/site/boxops/_C.cpython-311-x86_64-linux-gnu.so"});
  const CellResult r = run(c);
  for (const char* name : {"arch", "nvrtc", "fatbin"}) {
    ASSERT_TRUE(check(r, name, "", "10.0")) << name << "\n" << all_checks(r);
    EXPECT_EQ(check(r, name, "", "10.0")->status, Status::xfail) << name;
    EXPECT_EQ(check(r, name, "", "9.0")->status, Status::pass) << name;
  }
  EXPECT_EQ(check(r, "registration", "box_iou")->status, Status::pass);
  const std::string built = check(r, "build")->message;
  EXPECT_NE(built.find(std::string("setuptools project examples/boxops built as ") + kWheel), std::string::npos) << built;
  EXPECT_NE(built.find("with CUDA"), std::string::npos) << built;
  ASSERT_TRUE(check(r, "wheel"));
  EXPECT_EQ(check(r, "wheel")->status, Status::pass);
  EXPECT_EQ(r.status, Status::xfail) << all_checks(r);
  EXPECT_TRUE(r.meets_expectations);
}

// scripts/cell/fetch_pypi.py's answer for a wheel this cell's Python accepts.
json fetch_json(const std::string& filename) {
  return {{"ok", true}, {"kind", "wheel"}, {"requirement", "fbgemm-gpu-cpu==1.0.0"},
          {"file", "fbgemm-gpu-cpu-1.0.0/" + filename}, {"path", "/downloads/fbgemm-gpu-cpu-1.0.0/" + filename},
          {"filename", filename}, {"sha256", "5d1c"}, {"size", 3000000}, {"cached", false}, {"download_bytes", 3000000},
          {"url", "https://files.pythonhosted.org/packages/" + filename}};
}

// A CPU cell checking a prebuilt wheel from PyPI (project {wheel: fbgemm-gpu-cpu==1.0.0}).
Cell wheel_project_cell(const std::string& id) {
  Cell c = cpu_cell();
  c.id = id;
  c.project = project("wheel", {});
  c.project->path.clear();
  c.project->wheel = "fbgemm-gpu-cpu==1.0.0";
  c.project->ns = "fbgemm";
  return c;
}

TEST_F(RunCell, WheelProjectIsFetchedWithNetworkThenInstalledWithout) {
  Cell c = wheel_project_cell("fbgemm-trixie-torch2.6-cpu");
  c.project->ops = {"asynchronous_complete_cumsum"};
  script_passing_project(c, {"/build/site/fbgemm_gpu/fbgemm_gpu_py.so"});
  const std::string whl = "fbgemm_gpu_cpu-1.0.0-cp311-cp311-manylinux2014_x86_64.whl";
  engine_->on("fetch", CannedStep::prints(fetch_json(whl).dump() + "\n"));
  const CellResult r = run(c);
  EXPECT_EQ(ran(), (Steps{"probe", "fetch", "torchvision", "build", "load"})) << "a wheel has no configure";
  const StepCommand* fetch = engine_->command("fetch");
  ASSERT_TRUE(fetch);
  EXPECT_TRUE(fetch->network) << "the fetch step is the one that reaches PyPI";
  EXPECT_TRUE(has_arg(*fetch, "fbgemm-gpu-cpu==1.0.0"));
  for (const auto& cmd : engine_->commands)
    if (cmd.step != "fetch" && cmd.step != "requirements") EXPECT_FALSE(cmd.network) << cmd.step << " must run with --network=none";
  EXPECT_TRUE(engine_->command("requirements")->network) << "the project's requirements are fetched with the project";
  EXPECT_TRUE(has_arg(*engine_->command("requirements"), "/downloads/fbgemm-gpu-cpu-1.0.0/" + whl));
  const StepCommand* build = engine_->command("build");
  ASSERT_TRUE(build);
  EXPECT_TRUE(has_arg(*build, "/opmatrix/cell/install_wheel.py"));
  EXPECT_TRUE(has_arg(*build, "/downloads/fbgemm-gpu-cpu-1.0.0/" + whl));
  ASSERT_TRUE(check(r, "fetch"));
  EXPECT_EQ(check(r, "fetch")->status, Status::pass);
  EXPECT_NE(check(r, "fetch")->message.find("sha256 5d1c"), std::string::npos) << check(r, "fetch")->message;
  EXPECT_NE(check(r, "build")->message.find("prebuilt " + whl + " installed"), std::string::npos)
      << check(r, "build")->message;
  EXPECT_EQ(r.status, Status::pass) << all_checks(r);
  // The fetch step keeps what a cold run downloads (the script's download_bytes) for the dry run
  // of a later run, through the results file; a step whose answer gives none has none.
  const auto step = [&](const CellResult& result, const std::string& name) {
    return *std::find_if(result.steps.begin(), result.steps.end(), [&](const StepResult& s) { return s.name == name; });
  };
  const CellResult again = cell_result_from_json(to_json(r));
  EXPECT_EQ(step(again, "fetch").download_bytes, std::optional<double>(3000000));
  EXPECT_FALSE(step(again, "load").download_bytes.has_value());
}

// An atlas pair (atlas/atlas_file.h) runs only the steps marked for the atlas, pip's install plan
// among them; the pairs after the first of an image read its probe instead of running it again.
TEST_F(RunCell, AnAtlasPairRunsTheAtlasStepsAndProbesItsImageOnce) {
  Cell c = wheel_project_cell("fbgemm-gpu-cpu-1.0.0--trixie");
  c.atlas_pair = true;
  engine_->id_of_image = "0123abcd";
  script_passing_project(c, {"/build/site/fbgemm_gpu/fbgemm_gpu_py.so"});
  const std::string whl = "fbgemm_gpu_cpu-1.0.0-cp311-cp311-manylinux2014_x86_64.whl";
  engine_->on("fetch", CannedStep::prints(fetch_json(whl).dump() + "\n"));
  engine_->on("install-plan", CannedStep::prints(json{{"ok", true}, {"requirement", "fbgemm-gpu-cpu==1.0.0"},
                                                     {"install", json::array()}, {"torch_family", json::array()}}
                                                     .dump() + "\n"));
  CellResult r = run(c);
  EXPECT_EQ(ran(), (Steps{"probe", "fetch", "build", "load"})) << "no torchvision, archs or nvrtc in a pair";
  ASSERT_TRUE(engine_->command("install-plan"));
  EXPECT_TRUE(engine_->command("install-plan")->network) << "pip's resolver asks the index";
  ASSERT_TRUE(check(r, "install-plan"));
  EXPECT_EQ(check(r, "install-plan")->status, Status::pass) << all_checks(r);

  engine_->clear_records();
  c.id = "fbgemm-gpu-cpu-1.0.0--trixie-again";
  r = run(c);
  EXPECT_EQ(ran(), (Steps{"fetch", "build", "load"})) << "the image's probe is kept from the first pair";
  ASSERT_TRUE(step(r, "probe"));
  EXPECT_NE(step(r, "probe")->command.find("the probe of image 0123abcd, kept in"), std::string::npos);
  ASSERT_TRUE(check(r, "versions"));
  EXPECT_EQ(check(r, "versions")->status, Status::pass) << all_checks(r);
}

// An atlas pair's folder (its wheel installed with its requirements) is there while its steps run
// and gone once its result is written: 3,000 pairs would fill any disk. What the probe read of the
// torch reaches every later step, which need not import torch again for it.
TEST_F(RunCell, AnAtlasPairsFolderGoesOnceItsResultIsWrittenAndItsStepsGetTheProbedTorch) {
  Cell c = wheel_project_cell("fbgemm-gpu-cpu-1.0.0--trixie");
  c.atlas_pair = true;
  script_passing_project(c, {"/build/site/fbgemm_gpu/fbgemm_gpu_py.so"});
  engine_->on("fetch", CannedStep::prints(fetch_json("fbgemm_gpu_cpu-1.0.0-cp311-cp311-manylinux2014_x86_64.whl")
                                              .dump() + "\n"));
  bool folder_while_loading = false;
  engine_->before_step = [&](const StepCommand& cmd) {
    if (cmd.step == "load") folder_while_loading = fs::exists(engine_->host_build_dir(c));
  };
  run(c);
  EXPECT_TRUE(folder_while_loading);
  EXPECT_FALSE(fs::exists(engine_->host_build_dir(c)));
  ASSERT_TRUE(engine_->command("load"));
  const auto& env = engine_->command("load")->env;
  EXPECT_NE(std::find(env.begin(), env.end(), std::pair<std::string, std::string>{"OPMATRIX_TORCH_VERSION",
                                                                                   probe_json(c)["torch"]}),
            env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), std::pair<std::string, std::string>{"OPMATRIX_TORCH_CXX11_ABI", "1"}),
            env.end());
}

// OPMATRIX_PYPI_URL: the index fetch_pypi.py and pip ask instead of PyPI; pip ignores one over plain
// HTTP unless its host is trusted, so the host named is (a local mirror, the atlas's fault test).
TEST_F(RunCell, AnIndexOverHttpIsTheOnePipAsksAndTrusts) {
  Cell c = wheel_project_cell("opm-good-1.0--trixie");
  c.atlas_pair = true;
  script_passing_project(c, {});
  engine_->on("fetch", CannedStep::prints(fetch_json("opm_good-1.0-py3-none-any.whl").dump() + "\n"));
  ::setenv("OPMATRIX_PYPI_URL", "http://host.containers.internal:8123", 1);
  run(c);
  ::unsetenv("OPMATRIX_PYPI_URL");
  ASSERT_TRUE(engine_->command("install-plan"));
  const auto& env = engine_->command("install-plan")->env;
  using Var = std::pair<std::string, std::string>;
  EXPECT_NE(std::find(env.begin(), env.end(), Var{"PIP_INDEX_URL", "http://host.containers.internal:8123/simple"}),
            env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), Var{"PIP_TRUSTED_HOST", "host.containers.internal"}), env.end());
}

// A prebuilt PyPI wheel with no device code in a CUDA runtime was not built here: it is the
// release's CPU build, as pip installs it (torchtext 0.18.0: it never had CUDA code). What follows
// from having no device code passes, never "CUDA promised, built CPU-only".
TEST_F(RunCell, APrebuiltWheelWithoutDeviceCodeIsTheReleasesCpuBuild) {
  Cell c = cuda_cell();
  c.id = "torchtext-0.18.0--cuda";
  c.project = project("wheel", {});
  c.project->path.clear();
  c.project->wheel = "torchtext==0.18.0";
  c.project->ns = "torchtext";
  const std::string lib = "/build/site/torchtext/lib/libtorchtext.so";
  script_passing_project(c, {lib});
  engine_->on("fetch", CannedStep::prints(fetch_json("torchtext-0.18.0-cp311-cp311-manylinux1_x86_64.whl").dump() + "\n"));
  json ops = {{"vocab_lookup", kernel_row(true, false, true, true)}};
  engine_->on("load", CannedStep::prints(load_json(c, {lib}, "torchtext", ops).dump()));
  engine_->on("fatbin", lib, CannedStep::prints(fatbin_json(c, lib, {}, {}).dump()));
  const CellResult r = run(c);
  const CheckResult* build = check(r, "build");
  ASSERT_TRUE(build) << all_checks(r);
  EXPECT_EQ(build->status, Status::pass) << all_checks(r);
  EXPECT_NE(build->message.find("the release's CPU build, as pip installs it"), std::string::npos) << build->message;
  ASSERT_TRUE(check(r, "registration", "vocab_lookup"));
  EXPECT_EQ(check(r, "registration", "vocab_lookup")->status, Status::pass) << all_checks(r);
}

TEST_F(RunCell, WheelForAnotherPythonEndsTheCellWithPypisOwnFacts) {
  const Cell c = wheel_project_cell("fbgemm-sid-cpu");
  script_passing_project(c, {});
  const std::string why = "fbgemm-gpu-cpu 1.0.0 has cp39, cp310, cp311, cp312 wheels for manylinux2014 x86_64/aarch64; "
                          "this cell's Python 3.13 needs cp313";
  CannedStep refused = CannedStep::exits(1, "fetch_pypi.py: " + why + "\n");
  refused.result.stdout_text = json{{"ok", false}, {"error", "no_compatible_wheel"}, {"message", why}}.dump() + "\n";
  engine_->on("fetch", refused);
  const CellResult r = run(c);
  EXPECT_EQ(ran(), (Steps{"probe", "fetch"})) << "nothing to build or load without the file";
  ASSERT_TRUE(check(r, "fetch"));
  EXPECT_EQ(check(r, "fetch")->status, Status::fail);
  ASSERT_TRUE(check(r, "fetch")->diagnosis);
  EXPECT_EQ(check(r, "fetch")->diagnosis->kind, "no_compatible_wheel");
  EXPECT_NE(check(r, "fetch")->message.find("needs cp313"), std::string::npos);
  EXPECT_EQ(r.status, Status::fail);
}

TEST_F(RunCell, CmakeCudaProjectPassesTheArchsToCmakeAndTorch) {
  Cell c = cuda_cell();
  c.id = "boxops-cu12.8-cmake";
  c.project = project("cmake", {});
  script_passing_project(c, {"/build/libboxops.so"});
  const CellResult r = run(c);
  EXPECT_EQ(ran(),
            (Steps{"probe", "torchvision", "archs", "nvrtc", "configure", "build", "load", "fatbin"}));
  const StepCommand* configure = engine_->command("configure");
  EXPECT_TRUE(has_arg(*configure, "-DCMAKE_CUDA_ARCHITECTURES=80;90;100"));
  EXPECT_EQ(env_of(*configure, "TORCH_CUDA_ARCH_LIST"), "8.0;9.0;10.0");
  EXPECT_FALSE(check(r, "smoke")) << "no smoke command, no smoke check";
}

TEST_F(RunCell, FatbinReadsEveryLoadedLibraryInOneContainer) {
  const Cell c = setuptools_project_cell();
  const std::vector<std::string> libs = {"/build/site/boxops/_C.cpython-311-x86_64-linux-gnu.so",
                                         "/build/site/boxops/_ext_cuda.cpython-311-x86_64-linux-gnu.so"};
  script_passing_project(c, libs);
  const CellResult r = run(c);
  const auto fatbins = engine_->commands_for("fatbin");
  ASSERT_EQ(fatbins.size(), 1u) << "every library in one container";
  const auto& argv = fatbins[0]->argv;
  ASSERT_GE(argv.size(), 2u);
  EXPECT_EQ((std::vector<std::string>{argv[argv.size() - 2], argv.back()}), libs);
  int sm90 = 0;
  for (const auto& ch : r.checks) sm90 += ch.check == "fatbin" && ch.arch == "9.0";
  EXPECT_EQ(sm90, 2);
}

// torch-scatter's CUDA build: _scatter_cuda.so holds the kernels, _scatter_cpu.so (loaded when
// no GPU is visible) none. The archs are judged on the first; the second is no red.
TEST_F(RunCell, HostOnlyLibrariesBesideCudaOnesAreNoFatbinRed) {
  const Cell c = setuptools_project_cell();
  const std::string cuda_lib = "/build/site/torch_scatter/_scatter_cuda.so";
  const std::string cpu_lib = "/build/site/torch_scatter/_scatter_cpu.so";
  script_passing_project(c, {cuda_lib, cpu_lib});
  engine_->on("fatbin", CannedStep::prints(fatbin_libraries_json({fatbin_json(c, cuda_lib, {"sm_80", "sm_90"}, {}),
                                                                  fatbin_json(c, cpu_lib, {}, {})}).dump()));
  const CellResult r = run(c);
  int host_only = 0;
  for (const auto& ch : r.checks)
    if (ch.check == "fatbin" && ch.message.rfind("_scatter_cpu.so is a host-only library", 0) == 0) {
      EXPECT_EQ(ch.status, Status::skip);
      ++host_only;
    }
  EXPECT_EQ(host_only, 3) << all_checks(r);  // one per declared arch
  EXPECT_EQ(check(r, "fatbin", "", "9.0")->status, Status::pass);
  EXPECT_NE(check(r, "build")->message.find("device code in 1 of 2 libraries"), std::string::npos);
  EXPECT_EQ(r.status, Status::xfail) << all_checks(r);  // only the declared sm_100 items
}

// The project's own requirements: resolved and fetched with network, installed without, then
// named in the `requirements` check.
TEST_F(RunCell, ProjectRequirementsAreFetchedWithNetworkAndInstalledWithout) {
  Cell c = setuptools_project_cell();
  c.project->tests = {"python3", "-m", "pytest", "-q", "test"};
  c.project->test_requires = {"expecttest"};
  script_passing_project(c, {"/build/site/boxops/_C.so"});
  const json resolved = {{"ok", true}, {"requirements", {"scipy", "pytest", "expecttest"}},
                         {"resolved", "/downloads/requirements/abc/resolved.json"},
                         {"install", {{{"name", "scipy"}, {"version", "1.14.1"}}, {{"name", "pytest"}, {"version", "8.3.4"}}}}};
  engine_->on("requirements", CannedStep::prints(resolved.dump() + "\n"));
  engine_->on("requirements-install", CannedStep::prints(json({{"ok", true}}).dump() + "\n"));
  engine_->on("tests", CannedStep::prints(json({{"ok", true}, {"exit_code", 0}, {"junit", true},
                                                {"tests", {{{"id", "test/test_boxops.py::test_box_area"}, {"outcome", "passed"}}}}})
                                               .dump() + "\n"));
  const CellResult r = run(c);
  const StepCommand* resolve = engine_->command("requirements");
  ASSERT_TRUE(resolve);
  EXPECT_TRUE(resolve->network);
  EXPECT_TRUE(has_arg(*resolve, "--tests"));
  EXPECT_TRUE(has_arg(*resolve, "expecttest"));
  EXPECT_TRUE(has_arg(*resolve, "/src/examples/boxops"));
  const StepCommand* install = engine_->command("requirements-install");
  ASSERT_TRUE(install);
  EXPECT_FALSE(install->network);
  EXPECT_TRUE(has_arg(*install, "/downloads/requirements/abc/resolved.json"));
  // An sdist among them is built as the project is: CUDA for the archs this nvcc targets.
  EXPECT_EQ(env_of(*install, "FORCE_CUDA"), "1");
  EXPECT_EQ(env_of(*install, "TORCH_CUDA_ARCH_LIST"), "8.0;9.0");
  ASSERT_TRUE(check(r, "requirements")) << all_checks(r);
  EXPECT_EQ(check(r, "requirements")->status, Status::pass);
  EXPECT_NE(check(r, "requirements")->message.find("installed scipy 1.14.1, pytest 8.3.4"), std::string::npos);
  // The tests run after the build, against the installed wheel, their JUnit XML read back.
  const StepCommand* tests = engine_->command("tests");
  ASSERT_TRUE(tests);
  EXPECT_TRUE(argv_mentions(*tests, "run_tests.py"));
  EXPECT_TRUE(has_arg(*tests, "--junit"));
  EXPECT_EQ(env_of(*tests, "PYTHONPATH"), "/build/site:/build/deps");
  ASSERT_TRUE(check(r, "tests", "box_area")) << all_checks(r);
  EXPECT_EQ(check(r, "tests", "box_area")->status, Status::pass);
  EXPECT_TRUE(r.meets_expectations) << all_checks(r);
}

// Test files pytest could not collect: a module nothing the project requires provides is the
// matrix's limit (a skip the verdict names), one its requirements provide a red; the tests that
// collected count.
TEST_F(RunCell, TestFilesThatLackAModuleNameItsDistributionByTheRequirements) {
  Cell c = setuptools_project_cell();
  c.project->tests = {"python3", "-m", "pytest", "-q", "test"};
  script_passing_project(c, {"/build/site/boxops/_C.so"});
  engine_->on("requirements", CannedStep::prints(json({{"ok", true}, {"requirements", {"scipy>=1.10"}}, {"install", json::array()}})
                                                     .dump() + "\n"));
  engine_->on("requirements-install", CannedStep::prints(json({{"ok", true}}).dump() + "\n"));
  auto error = [](const std::string& file, const std::string& module) {
    return json{{"file", file}, {"module", module}, {"own", false}, {"top_installed", false},
                {"message", "ModuleNotFoundError: No module named '" + module + "'"}};
  };
  engine_->on("tests", CannedStep::prints(json({{"ok", true}, {"exit_code", 1}, {"junit", true},
                                                {"tests", {{{"id", "test/test_boxops.py::test_box_area"}, {"outcome", "passed"}}}},
                                                {"collection_errors", {error("test/test_vis.py", "cv2"), error("test/test_fit.py", "scipy")}}})
                                               .dump() + "\n"));
  const CellResult r = run(c);
  const CheckResult *cv2 = nullptr, *scipy = nullptr;
  for (const auto& t : r.checks)
    if (t.check == "tests" && t.message.find("module 'cv2'") != std::string::npos) cv2 = &t;
    else if (t.check == "tests" && t.message.find("module 'scipy'") != std::string::npos) scipy = &t;
  ASSERT_TRUE(cv2 && cv2->diagnosis && scipy && scipy->diagnosis) << all_checks(r);
  EXPECT_EQ(cv2->status, Status::skip);
  EXPECT_EQ(cv2->diagnosis->kind, "suite_needs_module");
  EXPECT_NE(cv2->message.find("add opencv-python-headless to test_requires"), std::string::npos) << cv2->message;
  EXPECT_EQ(scipy->status, Status::fail);
  EXPECT_EQ(scipy->diagnosis->kind, "required_module_missing");
  EXPECT_NE(scipy->diagnosis->repro.find("test/test_fit.py"), std::string::npos) << scipy->diagnosis->repro;
}

// A failing test of the project's own suite is a finding by its id, with a command that runs it.
TEST_F(RunCell, AFailingTestOfTheProjectIsAFindingByItsId) {
  Cell c = cmake_project_cell();
  c.project->tests = {"python3", "-m", "pytest", "-q", "test"};
  script_passing_project(c, {"/build/libboxops.so"});
  engine_->on("tests", CannedStep::prints(json({{"ok", true}, {"exit_code", 1}, {"junit", true},
                                                {"tests", {{{"id", "test/test_x.py::test_broken"}, {"outcome", "failed"},
                                                            {"message", "AssertionError: 1 != 2"}}}}})
                                               .dump() + "\n"));
  const CellResult r = run(c);
  const CheckResult* t = check(r, "tests");
  ASSERT_TRUE(t && t->diagnosis) << all_checks(r);
  EXPECT_EQ(t->status, Status::fail);
  EXPECT_EQ(t->message, "test/test_x.py::test_broken failed: AssertionError: 1 != 2");
  EXPECT_NE(t->diagnosis->repro.find("test/test_x.py::test_broken"), std::string::npos) << t->diagnosis->repro;
  EXPECT_EQ(t->diagnosis->repro.find(" test --junit"), std::string::npos) << "runs the one test, not the folder";
  EXPECT_EQ(r.status, Status::fail);
}

TEST_F(RunCell, SmokeFailureIsAFailedSmokeCheck) {
  const Cell c = cmake_project_cell();
  script_passing_project(c, {"/build/libboxops.so"});
  engine_->on("smoke", CannedStep::exits(1, "Traceback (most recent call last):\n  File \"smoke.py\", line 40\n"
                                            "AssertionError: box_iou differs from plain torch\n"));
  const CellResult r = run(c);
  const CheckResult* smoke = check(r, "smoke");
  ASSERT_TRUE(smoke && smoke->diagnosis) << all_checks(r);
  EXPECT_EQ(smoke->status, Status::fail);
  EXPECT_EQ(r.status, Status::fail);
}

TEST_F(RunCell, ProjectMissingCudaKernelIsARegistrationFailure) {
  const Cell c = setuptools_project_cell();
  const std::string lib = "/build/site/boxops/_C.cpython-311-x86_64-linux-gnu.so";
  script_passing_project(c, {lib});
  json ops = {{"box_area", kernel_row(true, true, true, true)}, {"box_iou", kernel_row(true, false, false, true)}};
  engine_->on("load", CannedStep::prints(load_json(c, {lib}, "boxops", ops).dump()));
  const CellResult r = run(c);
  const CheckResult* reg = check(r, "registration", "box_iou");
  ASSERT_TRUE(reg && reg->diagnosis) << all_checks(r);
  EXPECT_EQ(reg->status, Status::fail);
  EXPECT_NE(reg->diagnosis->summary.find("Could not run 'boxops::box_iou' with arguments from the 'CUDA' backend"),
            std::string::npos);
  EXPECT_EQ(check(r, "meta", "box_iou")->status, Status::fail);
  EXPECT_EQ(check(r, "registration", "box_area")->status, Status::pass);
  EXPECT_EQ(r.status, Status::fail);
}

TEST_F(RunCell, ProjectBuildFailureRunsNoLoadOrSmoke) {
  const Cell c = cmake_project_cell();
  script_passing_project(c, {"/build/libboxops.so"});
  engine_->on("build", CannedStep::exits(1, "/src/examples/boxops/csrc/cpu.cpp:12:5: error: 'parallel_for' is not a "
                                            "member of 'at'\n"));
  const CellResult r = run(c);
  EXPECT_EQ(ran(), (Steps{"probe", "torchvision", "configure", "build"}));
  ASSERT_TRUE(check(r, "build"));
  EXPECT_EQ(check(r, "build")->status, Status::fail);
  EXPECT_EQ(check(r, "build")->diagnosis->kind, "compile_error");
}

}  // namespace

}  // namespace opmatrix
