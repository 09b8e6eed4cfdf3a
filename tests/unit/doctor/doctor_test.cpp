#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "doctor/doctor.h"
#include "doctor/libtorch_inspect.h"
#include "doctor/script_folder.h"
#include "checks/arch/arch_judge.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

const DoctorFinding& finding(const std::vector<DoctorFinding>& findings, const std::string& id) {
  for (const auto& f : findings)
    if (f.id == id) return f;
  throw std::runtime_error("no finding " + id);
}
bool applies(const std::vector<DoctorFinding>& findings, const std::string& id) { return finding(findings, id).applies; }
std::vector<std::string> applying(const std::vector<DoctorFinding>& findings) {
  std::vector<std::string> ids;
  for (const auto& f : findings)
    if (f.applies) ids.push_back(f.id);
  return ids;
}

nlohmann::json env(const char* torch_cuda, bool nms_cuda, bool meta, const char* nvcc, const char* gpu_cap) {
  nlohmann::json keys{{"CPU", true}, {"CUDA", nms_cuda}, {"Meta", meta}, {"Autograd", true}};
  nlohmann::json e;
  e["python"] = {{"executable", "python3"}};
  e["scripts"] = {{"probe.py", {{"ok", true}}}, {"torchvision_registrations.py", {{"ok", true}}}};
  e["probe"] = {{"torch", "2.5.1"}, {"torchvision", "0.20.1"}, {"cxx11_abi", false}, {"nvcc", nvcc ? nvcc : ""}};
  e["probe"]["torch_cuda"] = torch_cuda ? nlohmann::json(torch_cuda) : nlohmann::json(nullptr);
  e["torchvision_view"] = {{"import_ok", true}, {"error", nullptr}, {"torchvision", "0.20.1"},
                           {"ops", {{"nms", keys}, {"deform_conv2d", keys}}}};
  e["torchvision_view"]["torch_cuda"] = e["probe"]["torch_cuda"];
  e["torchvision_view"]["torchvision_cuda"] = e["probe"]["torch_cuda"];
  e["nvcc_archs"] = {"75", "80", "86", "89", "90"};
  e["gpu"] = gpu_cap ? nlohmann::json{{"present", true}, {"name", "GPU"}, {"compute_cap", gpu_cap}, {"driver", "580"}}
                     : nlohmann::json{{"present", false}, {"reason", "none"}};
  return e;
}

// What probe.py and torchvision_registrations.py print on this project's build machine
// (Debian bookworm: Debian's python3-torch 1.13 + python3-torchvision 0.14.1, CPU; NVIDIA's
// nvcc 13.0 on PATH; no GPU), as `opmatrix doctor --json` recorded them
// (tests/data/doctor/debian-bookworm.json); and the same machine, a venv with `pip install
// torch==2.5.1 torchvision==0.20.1` (cu124 wheels; tests/data/doctor/pip-cu124.json).
nlohmann::json recorded(const std::string& name) {
  std::ifstream in(std::string(OPMATRIX_TEST_DATA) + "/doctor/" + name + ".json");
  return nlohmann::json::parse(in);
}

// The bug of issue 12: torchvision_registrations.py run without dispatcher.py next to it.
nlohmann::json torchvision_script_failed(nlohmann::json e) {
  e["scripts"]["torchvision_registrations.py"] = {
      {"ok", false}, {"exit_code", 1}, {"command", "/usr/bin/python3 scripts/cell/torchvision_registrations.py"},
      {"error", "torchvision_registrations.py failed (exit 1)"},
      {"stderr_tail", "Traceback (most recent call last):\n  File \"torchvision_registrations.py\", line 10, in <module>\n"
                      "ModuleNotFoundError: No module named 'dispatcher'"}};
  e["torchvision_view"] = nullptr;
  return e;
}

// A stand-in interpreter: a shell script (it never runs the Python it is given).
std::string fake_python(const std::string& dir, const std::string& body) {
  const std::string path = dir + "/fake-python";
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

struct TempDir {
  std::string path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "opmatrix-doctor-test-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST(Doctor, HealthyCudaEnvironmentHasNoFindings) {
  auto f = doctor_findings(env("12.4", true, true, "12.4.131", "9.0"));
  for (const auto& x : f) {
    EXPECT_FALSE(x.applies) << x.id << ": " << x.detail;
    EXPECT_TRUE(x.known) << x.id;
  }
}

TEST(Doctor, TorchvisionWithoutCudaKernels) {
  const auto f = doctor_findings(env("12.4", false, true, "12.4.131", nullptr));
  EXPECT_TRUE(applies(f, "cuda_backend"));
  EXPECT_NE(finding(f, "cuda_backend").detail.find("Could not run 'torchvision::nms'"), std::string::npos);
}

TEST(Doctor, TorchvisionBuiltForAnotherCudaIsTheCudaBackendItem) {
  // nms has a CUDA kernel, but for CUDA 12.1 while torch has 12.4: run's torchvision check fails it.
  nlohmann::json e = env("12.4", true, true, "12.4.131", nullptr);
  e["torchvision_view"]["torchvision_cuda"] = "12.1";
  const auto f = doctor_findings(e);
  EXPECT_TRUE(applies(f, "cuda_backend"));
  EXPECT_NE(finding(f, "cuda_backend").detail.find("CUDA 12.1"), std::string::npos);
}

TEST(Doctor, GpuNewerThanTheToolkit) {
  auto f = doctor_findings(env("12.4", true, true, "12.4.131", "10.0"));
  EXPECT_TRUE(applies(f, "gpu_arch"));
}

TEST(Doctor, GpuArchJudgedByNvrtcToo) {
  nlohmann::json e = env("12.4", true, true, "12.4.131", "9.0");
  e["nvrtc"] = {{"library", "libnvrtc.so.12"}, {"version", "12.4"}, {"error", nullptr},
                {"archs", {{"9.0", {{"accepted", false}, {"log", "nvrtc: error: invalid value for --gpu-architecture (-arch)"}}}}}};
  const auto f = doctor_findings(e);
  EXPECT_TRUE(applies(f, "gpu_arch"));
  EXPECT_NE(finding(f, "gpu_arch").detail.find("rejects sm_90"), std::string::npos) << finding(f, "gpu_arch").detail;
  e["nvrtc"]["archs"]["9.0"] = {{"accepted", true}, {"log", "ok"}};
  EXPECT_FALSE(applies(doctor_findings(e), "gpu_arch"));
}

TEST(Doctor, MissingMetaKernel) {
  EXPECT_TRUE(applies(doctor_findings(env("12.4", true, false, "12.4.131", nullptr)), "meta_kernel"));
}

TEST(Doctor, CpuTorchNextToNvcc) {
  EXPECT_TRUE(applies(doctor_findings(env(nullptr, false, true, "13.0.88", nullptr)), "torch_without_cuda"));
  EXPECT_FALSE(applies(doctor_findings(env(nullptr, false, true, nullptr, nullptr)), "torch_without_cuda"));
}

TEST(Doctor, NvccOfAnotherMajor) {
  EXPECT_TRUE(applies(doctor_findings(env("12.4", true, true, "13.0.88", nullptr)), "cuda_versions"));
  // A minor difference is a warning of torch.utils.cpp_extension, not this error.
  EXPECT_FALSE(applies(doctor_findings(env("12.4", true, true, "12.6.85", nullptr)), "cuda_versions"));
}

namespace {
// What doctor finds when `import torchvision` failed with `error` (torch and nvcc of CUDA 12.4).
std::vector<DoctorFinding> findings_of_a_failed_import(const std::string& error) {
  nlohmann::json e = env("12.4", true, true, "12.4.131", nullptr);
  e["torchvision_view"]["import_ok"] = false;
  e["torchvision_view"]["error"] = error;
  return doctor_findings(e);
}
}  // namespace

TEST(Doctor, UndefinedSymbolFromAFailedImport) {
  auto f = findings_of_a_failed_import(
      "import torchvision: OSError: _C.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev");
  EXPECT_TRUE(applies(f, "undefined_symbol"));
  // Users get the ImportError, not a CUDA-backend error from a torchvision that did load.
  EXPECT_FALSE(applies(f, "cuda_backend"));
  EXPECT_FALSE(applies(f, "torchvision_import"));  // the undefined symbol item says it
}

TEST(Doctor, TorchvisionThatDoesNotImportForAnotherReason) {
  auto f = findings_of_a_failed_import("import torchvision: RuntimeError: operator torchvision::nms does not exist");
  EXPECT_TRUE(applies(f, "torchvision_import"));
  EXPECT_NE(finding(f, "torchvision_import").detail.find("operator torchvision::nms does not exist"), std::string::npos);
  EXPECT_NE(finding(f, "torchvision_import").fix.find("torchvision 0.20 for torch 2.5.1"), std::string::npos)
      << finding(f, "torchvision_import").fix;
  EXPECT_FALSE(applies(f, "undefined_symbol"));
  EXPECT_FALSE(applies(f, "cuda_backend"));
}

TEST(Doctor, NoTorchvisionInstalledIsNoFailure) {
  nlohmann::json e = env("12.4", true, true, "12.4.131", nullptr);
  e["probe"]["torchvision"] = nullptr;
  e["torchvision_view"] = {{"import_ok", false}, {"torch_cuda", "12.4"}, {"ops", nlohmann::json::object()},
                           {"error", "import torchvision: ModuleNotFoundError: No module named 'torchvision'"}};
  const auto f = doctor_findings(e);
  EXPECT_TRUE(applying(f).empty()) << testing::PrintToString(applying(f));
  EXPECT_EQ(finding(f, "cuda_backend").detail, "no torchvision here");
}

// Issue 12, first half: Debian's torch 1.13 + torchvision 0.14.1 (CPU). torchvision imports;
// no CUDA item applies; what does apply is true: no Meta kernels in 0.14, and a CPU torch
// next to an nvcc.
TEST(Doctor, DebianCpuTorchWithTorchvision0141) {
  const DoctorReport rep = judge_environment(recorded("debian-bookworm"));
  EXPECT_EQ(applying(rep.findings), (std::vector<std::string>{"meta_kernel", "torch_without_cuda"}));
  EXPECT_EQ(finding(rep.findings, "cuda_backend").detail, "torch has no CUDA, so no CUDA tensors reach torchvision");
  EXPECT_EQ(finding(rep.findings, "torchvision_import").detail, "torchvision 0.14.1a0 imports");
  EXPECT_EQ(finding(rep.findings, "undefined_symbol").detail, "torchvision's extension loads");
  for (const auto& f : rep.findings) EXPECT_TRUE(f.known) << f.id;

  // run's judges, on a cell declared as found.
  const Cell cell = cell_as_found(rep.environment);
  EXPECT_EQ(cell.torch, "1.13.0a0");
  EXPECT_EQ(cell.torchvision, "0.14.1a0");
  EXPECT_EQ(cell.cuda, "none");
  ASSERT_GE(rep.checks.size(), 2u);
  EXPECT_EQ(rep.checks[0].check, "versions");
  EXPECT_EQ(rep.checks[0].status, Status::pass) << rep.checks[0].message;
  EXPECT_EQ(rep.checks[1].check, "torchvision");
  EXPECT_EQ(rep.checks[1].status, Status::pass) << rep.checks[1].message;
  int registration = 0;
  for (const auto& c : rep.checks)
    if (c.check == "registration") {
      ++registration;
      EXPECT_EQ(c.status, Status::pass) << c.op << ": " << c.message;  // CPU kernels, no CUDA expected
    }
  EXPECT_EQ(registration, 6);

  const std::string text = format_doctor_text(rep);
  EXPECT_NE(text.find("torchvision  0.14.1a0 · CUDA none (torch's: none)"), std::string::npos) << text;
  EXPECT_EQ(text.find("does not import"), std::string::npos) << text;
  EXPECT_EQ(text.find("no torchvision"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n +nms +yes +- +- +-\n)"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n +deform_conv2d +yes +- +- +yes\n)"))) << text;
  const nlohmann::json j = doctor_json(rep);
  EXPECT_TRUE(j["failed_scripts"].empty());
  EXPECT_EQ(j["cell_as_found"]["torchvision"], "0.14.1a0");
}

// Issue 12, second half: pip's torch 2.5.1+cu124 + torchvision 0.20.1, whose nms has a CUDA
// kernel: the CUDA-backend item must not apply. What applies is nvcc 13 against torch's 12.4.
TEST(Doctor, PipCu124WithTorchvision0201HasNoFalseCudaBackendItem) {
  nlohmann::json e = recorded("pip-cu124");
  DoctorReport rep = judge_environment(e);
  EXPECT_FALSE(applies(rep.findings, "cuda_backend")) << finding(rep.findings, "cuda_backend").detail;
  EXPECT_EQ(finding(rep.findings, "cuda_backend").detail,
            "torchvision::nms has a CUDA kernel; torchvision CUDA 12.4 = torch CUDA 12.4");
  EXPECT_EQ(applying(rep.findings), std::vector<std::string>{"cuda_versions"});
  for (const auto& c : rep.checks) EXPECT_FALSE(is_bad(c.status)) << c.check << " " << c.op << ": " << c.message;

  // With an nvcc of torch's CUDA major version, nothing applies.
  e["probe"]["nvcc"] = "12.4.131";
  rep = judge_environment(e);
  EXPECT_TRUE(applying(rep.findings).empty()) << testing::PrintToString(applying(rep.findings));
  const std::string text = format_doctor_text(rep);
  EXPECT_NE(text.find("torchvision  0.20.1+cu124 · CUDA 12.4 (torch's: 12.4)"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n +nms +yes +yes +yes +-\n)"))) << text;
}

// The bug itself: the torchvision script failed. Its error is in the output, the findings that
// needed it are unknown — never APPLIES, never a made-up "does not import".
TEST(Doctor, AFailedScriptIsShownAndItsFindingsAreUnknown) {
  for (const char* base : {"debian-bookworm", "pip-cu124"}) {
    const DoctorReport rep = judge_environment(torchvision_script_failed(recorded(base)));
    for (const char* id : {"cuda_backend", "meta_kernel", "undefined_symbol", "torchvision_import"}) {
      EXPECT_FALSE(finding(rep.findings, id).applies) << id;
      EXPECT_FALSE(finding(rep.findings, id).known) << id;
      EXPECT_NE(finding(rep.findings, id).detail.find("torchvision_registrations.py failed (exit 1)"), std::string::npos);
    }
    EXPECT_EQ(failed_scripts(rep.environment),
              std::vector<std::string>{"torchvision_registrations.py: torchvision_registrations.py failed (exit 1)"});
    const std::string text = format_doctor_text(rep);
    EXPECT_NE(text.find("FAILED  torchvision_registrations.py failed (exit 1)"), std::string::npos) << text;
    EXPECT_NE(text.find("ModuleNotFoundError: No module named 'dispatcher'"), std::string::npos) << text;
    EXPECT_NE(text.find("[unknown] Could not run 'torchvision::nms'"), std::string::npos) << text;
    EXPECT_EQ(text.find("torchvision does not import"), std::string::npos) << text;
    const nlohmann::json j = doctor_json(rep);
    EXPECT_EQ(j["environment"]["scripts"]["torchvision_registrations.py"]["exit_code"], 1);
    EXPECT_EQ(j["failed_scripts"].size(), 1u);
  }
}

TEST(Doctor, InspectsARealLibtorchFolderOrSaysWhyNot) {
  LibtorchFacts missing = inspect_libtorch("/nonexistent-libtorch");
  EXPECT_NE(missing.error.find("not a folder"), std::string::npos);
}

TEST(NvccArchs, ParsesListGpuArchInOrderOnce) {
  // CUDA 13.0's `nvcc --list-gpu-arch`, plus a family/arch-specific entry and a repeat.
  const std::string out =
      "compute_75\ncompute_80\ncompute_86\ncompute_87\ncompute_88\ncompute_89\ncompute_90\ncompute_100\n"
      "compute_110\ncompute_103\ncompute_120\ncompute_121\ncompute_90a\ncompute_100f\ncompute_75\n";
  EXPECT_EQ(parse_nvcc_gpu_archs(out), (std::vector<std::string>{"75", "80", "86", "87", "88", "89", "90", "100", "110",
                                                                 "103", "120", "121", "90a", "100f"}));
  EXPECT_TRUE(parse_nvcc_gpu_archs("").empty());
  EXPECT_TRUE(parse_nvcc_gpu_archs("nvcc fatal   : Unknown option '--list-gpu-arch'").empty());
}

// Every script doctor runs ships in the binary, as in scripts/cell, with every sibling
// script it imports (dispatcher.py for torchvision_registrations.py).
TEST(DoctorScripts, EmbedsWhatItRunsAndWhatThoseImport) {
  const auto names = embedded_script_names();
  for (const char* s : {"probe.py", "torchvision_registrations.py", "dispatcher.py", "nvrtc_probe.py"})
    EXPECT_NE(std::find(names.begin(), names.end(), s), names.end()) << s;
  ScriptFolder folder;
  const std::string cell_dir = std::string(OPMATRIX_SOURCE_DIR) + "/scripts/cell/";
  static const std::regex import_re(R"((?:^|\n)\s*(?:from\s+(\w+)\s+import|import\s+(\w+)))");
  for (const auto& name : names) {
    const std::string text = read_text_file(folder.script(name));
    EXPECT_EQ(text, read_text_file(cell_dir + name)) << name << " differs from scripts/cell (rebuild)";
    for (auto it = std::sregex_iterator(text.begin(), text.end(), import_re); it != std::sregex_iterator(); ++it) {
      const std::string module = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
      if (fs::exists(cell_dir + module + ".py"))
        EXPECT_NE(std::find(names.begin(), names.end(), module + ".py"), names.end())
            << name << " imports " << module << ".py, which is not embedded";
    }
  }
}

TEST(DoctorScripts, PrivateFolderIsRemovedAfterwards) {
  std::string path;
  {
    ScriptFolder folder;
    path = folder.path();
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_TRUE(fs::exists(folder.script("dispatcher.py")));
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(DoctorScripts, AFailingScriptKeepsItsExitStatusAndStderr) {
  TempDir dir;
  ScriptFolder folder;
  const std::string py = fake_python(dir.path, "echo \"Traceback (most recent call last):\" >&2\n"
                                               "echo \"ModuleNotFoundError: No module named 'dispatcher'\" >&2\nexit 3");
  const ScriptRun r = run_embedded_script(py, folder, "torchvision_registrations.py", {}, 30);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.error, "torchvision_registrations.py failed (exit 3)");
  EXPECT_EQ(r.stderr_tail, "Traceback (most recent call last):\nModuleNotFoundError: No module named 'dispatcher'");
  EXPECT_TRUE(r.output.is_null());
  const nlohmann::json j = script_run_json(r);
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_EQ(j["stderr_tail"], r.stderr_tail);

  const std::string chatty = fake_python(dir.path, "echo 'not json'");
  const ScriptRun n = run_embedded_script(chatty, folder, "probe.py", {}, 30);
  EXPECT_FALSE(n.ok);
  EXPECT_EQ(n.error, "probe.py exited 0 but printed no JSON object");

  const ScriptRun missing = run_embedded_script(dir.path + "/no-such-python", folder, "probe.py", {}, 30);
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.error.find("could not start"), std::string::npos);
}

TEST(DoctorScripts, ScriptsRunFromTheirFolderWithArguments) {
  TempDir dir;
  ScriptFolder folder;
  // The script's path is the interpreter's first argument; it runs from the private folder.
  const std::string py = fake_python(dir.path, "test -f \"$(dirname \"$1\")/dispatcher.py\" || exit 9\n"
                                               "printf '{\"script\": \"%s\", \"arg\": \"%s\"}' \"$(basename \"$1\")\" \"$2\"");
  const ScriptRun r = run_embedded_script(py, folder, "nvrtc_probe.py", {"--cuda-root"}, 30);
  ASSERT_TRUE(r.ok) << r.error << "\n" << r.stderr_tail;
  EXPECT_EQ(r.output["script"], "nvrtc_probe.py");
  EXPECT_EQ(r.output["arg"], "--cuda-root");
}

TEST(DoctorScripts, RunDoctorReportsAFailingInterpreter) {
  TempDir dir;
  const std::string py = fake_python(dir.path, "echo \"boom in $(basename \"$1\")\" >&2\nexit 4");
  const DoctorReport rep = run_doctor({py, ""});
  EXPECT_EQ(failed_scripts(rep.environment).size(), 2u);
  for (const auto& f : rep.findings) {
    if (f.id == "gpu_arch") continue;  // no GPU: known without the scripts
    EXPECT_FALSE(f.known) << f.id;
    EXPECT_FALSE(f.applies) << f.id;
  }
  const std::string text = format_doctor_text(rep);
  EXPECT_NE(text.find("boom in probe.py"), std::string::npos) << text;
  EXPECT_NE(text.find("boom in torchvision_registrations.py"), std::string::npos) << text;
  EXPECT_NE(text.find("(exit 4)"), std::string::npos) << text;
}

TEST(DoctorScripts, TailLines) {
  EXPECT_EQ(tail_lines("a\nb\nc\n\n", 2), "b\nc");
  EXPECT_EQ(tail_lines("a\nb", 5), "a\nb");
  EXPECT_EQ(tail_lines("", 5), "");
}

}  // namespace opmatrix

namespace opmatrix {

// `opmatrix run` needs podman or docker, which a wheel cannot bring: doctor names what answers
// and, with neither, what to install.
TEST(DoctorText, ContainerEnginesFoundOrWhatToInstall) {
  nlohmann::json e = env("", false, false, "", "");
  e["engines"] = {{"podman", "podman version 4.3.1"}, {"docker", nullptr}};
  e["base_image_tool"] = nullptr;
  std::string text = format_doctor_text(judge_environment(e));
  EXPECT_NE(text.find("  engines      docker none · podman version 4.3.1 · mmdebstrap none (podman's base images)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("runs cells in a container engine"), std::string::npos) << text;

  e["engines"] = {{"podman", nullptr}, {"docker", nullptr}};
  text = format_doctor_text(judge_environment(e));
  EXPECT_NE(text.find("`opmatrix run` runs cells in a container engine: install podman: `sudo apt-get install podman`"),
            std::string::npos)
      << text;
}

}  // namespace opmatrix
