#include "run/cell_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "checks/registry.h"
#include "checks/script_checks.h"
#include "diagnose/diagnose.h"
#include "matrix/to_json.h"
#include "results/test_outcomes.h"
#include "run/fetch_check.h"
#include "run/log_ticker.h"
#include "run/library_checks.h"
#include "run/nvcc_archs.h"
#include "run/torchvision_check.h"
#include "run/version_check.h"
#include "util/atomic_write.h"
#include "util/cuda_arch.h"
#include "util/json_fields.h"
#include "util/clock.h"
#include "version.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

constexpr const char* kOwnLibrary = "kernels/libopmatrix_ops.so";
// How often a running image build or step says what it is doing (docs/cli.md#run).
constexpr double kProgressSeconds = 10;

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (std::size_t at = 0; at <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', at), dirs.size());
    std::error_code ec;
    if (end > at && fs::is_regular_file(fs::path(dirs.substr(at, end - at)) / program, ec)) return true;
    at = end + 1;
  }
  return false;
}

Status status_of_process(const ProcessResult& r) {
  if (r.timed_out) return Status::timeout;
  if (r.interrupted) return Status::error;
  if (r.signal != 0) return Status::crash;
  return r.ok() ? Status::pass : Status::fail;
}

class CellRun {
 public:
  CellRun(const Matrix& matrix, const Cell& cell, Engine& engine, const RunSettings& settings, const Progress& progress)
      : matrix_(matrix), cell_(cell), engine_(engine), settings_(settings), progress_(progress),
        paths_(engine.paths(cell)), log_dir_(settings.results_dir + "/logs/" + cell.id) {}

  CellResult run() {
    const auto t0 = std::chrono::steady_clock::now();
    result_.harness_version = kOpmatrixVersion;
    result_.cell = cell_to_json(cell_);
    result_.engine = engine_.name();
    result_.started_at = now_iso8601();
    clear_log_folder();
    fs::create_directories(engine_.host_build_dir(cell_));
    fs::create_directories(engine_.host_ccache_dir());
    fs::create_directories(engine_.host_downloads_dir());

    // The sequence is the registry's (checks/registry.h): each step runs where its `when`
    // holds; a failed `ends_cell` step (image, probe) ends the cell.
    for (const StepSpec& spec : step_registry()) {
      if (!applies(spec.when)) continue;
      if (!run_step_of(spec) && spec.ends_cell) break;
    }
    reconcile_cuda_build();
    apply_expectations(cell_, result_);
    result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return result_;
  }

 private:
  bool applies(StepWhen when) const {
    switch (when) {
      case StepWhen::every_cell: return true;
      case StepWhen::cuda_cell: return cell_.has_cuda();
      case StepWhen::built: return built_;
      case StepWhen::built_cuda: return built_ && cell_.has_cuda() && !built_libraries_.empty();
      case StepWhen::own_kernels: return built_ && !cell_.project;
      case StepWhen::project_smoke: return built_ && cell_.project && !cell_.project->smoke.empty();
      case StepWhen::pypi_project: return cell_.project && cell_.project->from_pypi();
    }
    return false;
  }

  // The built-in steps by name; any other registry step is a script check. False: it failed.
  bool run_step_of(const StepSpec& spec) {
    const std::string& n = spec.name;
    if (n == "image") return image();
    if (n == "probe") return probe();
    if (n == "fetch") return fetch();
    if (n == "torchvision") return torchvision_python_view(), true;
    if (n == "archs") return supported_archs(), true;
    if (n == "nvrtc") return nvrtc(), true;
    if (n == "configure") return configure();
    if (n == "build") return build();
    if (n == "load") return load(), true;
    if (n == "test") return test(), true;
    if (n == "smoke") return smoke(), true;
    if (n == "fatbin") return fatbin(), true;
    if (n == "torchvision-cpp") return torchvision_verdict(), true;
    return script_check(spec);
  }

  double timeout_of(const std::string& step) const { return step_timeout(cell_, step); }

  std::string log_path(const std::string& step) const { return step_log_path(settings_.results_dir, cell_.id, step); }

  // The last run's logs go; an image log the look-ahead wrote in this run stays.
  void clear_log_folder() {
    if (!settings_.image_log_from_look_ahead) {
      fs::remove_all(log_dir_);
    } else {
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(log_dir_, ec))
        if (entry.path() != fs::path(log_path("image"))) fs::remove_all(entry.path(), ec);
    }
    fs::create_directories(log_dir_);
  }
  std::string log_rel(const std::string& step) const { return "logs/" + cell_.id + "/" + step + ".log"; }

  void say(const std::string& line) {
    if (progress_) progress_(cell_.id, line);
  }

  StepCommand command(const std::string& step, std::vector<std::string> argv, double timeout) const {
    StepCommand c;
    c.cell_id = cell_.id;
    c.step = step;
    c.argv = std::move(argv);
    c.log_path = log_path(step);
    c.timeout_s = timeout;
    c.env = {{"CCACHE_DIR", paths_.ccache}, {"OPMATRIX_EXPECT_CUDA", cell_.has_cuda() ? "1" : "0"}};
    return c;
  }

  // Runs a step, records it, and on failure records the diagnosis as the `check` it stands for.
  // `output_is_data`: a non-zero exit that only reports findings (judged later), so the step
  // itself passed, in the results and on the console alike.
  ProcessResult step(const StepCommand& cmd, const std::string& check,
                     const std::function<bool(const ProcessResult&)>& output_is_data = nullptr) {
    say(fmt::format("{} ...", cmd.step));
    ProcessResult r;
    {
      // A step that runs long says every 10 s what it is doing (a compile's N of M, the test).
      LogTicker ticker(cmd.log_path, kProgressSeconds, [&](const std::string& line) { say(cmd.step + ": " + line); },
                       LogTicker::ReadFrom::end, step_reader());
      r = engine_.run_step(image_, cell_, cmd);
    }
    StepResult s;
    s.name = cmd.step;
    s.status = r.started ? status_of_process(r) : Status::error;
    if (s.status == Status::fail && output_is_data && output_is_data(r)) s.status = Status::pass;
    s.seconds = r.seconds;
    s.exit_code = r.exit_code;
    s.signal = r.signal;
    s.log = log_rel(cmd.step);
    s.command = engine_.display(image_, cell_, cmd);
    result_.steps.push_back(s);
    say(fmt::format("{} {} ({:.1f} s)", cmd.step, to_string(s.status), r.seconds));
    if (!r.ok() && !check.empty()) {
      CheckResult c;
      c.check = check;
      c.status = r.interrupted ? Status::error : s.status == Status::fail ? Status::fail : s.status;
      if (!r.started) {
        c.status = Status::error;
        c.message = "could not start: " + r.start_error;
      }
      StepFailure f{cmd.step, read_text_file(cmd.log_path), r.exit_code, r.signal, r.timed_out, cmd.timeout_s, s.command};
      Diagnosis d = diagnose_step(f);
      if (r.interrupted) d.summary = "interrupted (SIGINT/SIGTERM) during " + cmd.step;
      if (c.message.empty()) c.message = d.summary;
      c.diagnosis = d;
      c.seconds = r.seconds;
      result_.checks.push_back(c);
    }
    return r;
  }

  bool image() {
    say("image ...");
    ImageOutcome img;
    {
      // A cold build takes minutes: what it is doing, every 10 s (nothing for a present image).
      // A build the look-ahead began is read from its first line (its step so far), and the
      // time in the line is this cell's wait for it.
      const bool ahead = settings_.image_log_from_look_ahead;
      LogTicker ticker(log_path("image"), kProgressSeconds,
                       [&](const std::string& line) {
                         say((ahead ? "image: waiting for the look-ahead build: " : "image: ") + line);
                       },
                       ahead ? LogTicker::ReadFrom::start : LogTicker::ReadFrom::end);
      img = engine_.ensure_image(cell_, log_path("image"), timeout_of("image"));
    }
    image_ = img.tag;
    result_.image = img.tag;
    keep_build_tree_only_for(img.tag);
    if (engine_.name() == "host") return true;
    StepResult s;
    s.name = "image";
    s.status = img.ok ? Status::pass : (img.process.timed_out ? Status::timeout : Status::error);
    s.seconds = img.seconds;
    s.exit_code = img.process.exit_code;
    s.log = log_rel("image");
    s.command = img.built ? "build " + img.tag : "present " + img.tag;
    // Acquired by someone else (the look-ahead, or a cell of the same image): the step keeps
    // the build's own seconds, and says how long this cell really stood still for it.
    std::string how;
    if (!img.acquired_by.empty()) {
      s.waited_seconds = img.waited_seconds;
      how = img.acquired_by == "the look-ahead" ? "by the look-ahead" : "built for " + img.acquired_by;
      s.command += fmt::format(" ({}; this cell waited {:.1f} s)", how, img.waited_seconds);
      how = fmt::format(", {}; waited {:.1f} s", how, img.waited_seconds);
    }
    result_.steps.push_back(s);
    say(fmt::format("image {} {} ({:.1f} s{})", img.built ? "built" : "present", img.ok ? img.tag : "FAILED",
                    img.seconds, how));
    if (img.ok) result_.image_id = engine_.image_id(img.tag);
    if (img.ok) return true;
    Diagnosis d;
    d.kind = "image_error";
    d.summary = img.error;
    d.fix = "run the build command by hand and read its log; for pip downloads behind a re-signing proxy pass "
            "--extra-ca (docs/containers.md)";
    d.repro = fmt::format("opmatrix run --cell {}", cell_.id);
    d.evidence = read_text_file(log_path("image")).substr(0, 4000);
    result_.diagnoses.push_back(d);
    result_.checks.push_back({"", "build", "", s.status, img.error, "", img.seconds, {}, d});
    return false;
  }

  // A build tree made in another image (other compiler, other torch) would mislead CMake and
  // ninja: start it afresh when the image changed. Same image: incremental build.
  void keep_build_tree_only_for(const std::string& image) {
    const std::string dir = engine_.host_build_dir(cell_);
    const std::string stamp = dir + "/.opmatrix-image";
    if (fs::exists(stamp) && read_text_file(stamp) == image) return;
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir);
    write_file_atomically(stamp, image);
  }

  bool probe() {
    StepCommand cmd = command("probe", {paths_.scripts + "/python.sh", paths_.scripts + "/probe.py"},
                              timeout_of("probe"));
    cmd.capture_stdout = true;
    ProcessResult r = step(cmd, "versions");
    if (!r.ok()) return false;
    nlohmann::json probe = nlohmann::json::parse(r.stdout_text, nullptr, false);
    if (!probe.is_object()) {
      result_.checks.push_back({"", "versions", "", Status::error, "the probe printed no JSON", "", r.seconds, {},
                                std::nullopt});
      return false;
    }
    result_.versions = probe;
    result_.checks.push_back(check_versions(cell_, probe));
    return true;
  }

  // A pypi:/wheel: project's file, from PyPI into the shared downloads folder (the one step
  // with network), chosen by the cell's own Python as pip would, sha256 checked against PyPI's.
  bool fetch() {
    const Project& p = *cell_.project;
    StepCommand cmd = command("fetch", {paths_.scripts + "/python.sh", paths_.scripts + "/fetch_pypi.py", "--kind",
                                        p.wheel.empty() ? "sdist" : "wheel", "--requirement",
                                        p.wheel.empty() ? p.pypi : p.wheel, "--cache", paths_.downloads},
                              timeout_of("fetch"));
    cmd.network = true;
    cmd.capture_stdout = true;
    // A PyPI mirror the host is told to use is the cell's too.
    if (const char* index = std::getenv("OPMATRIX_PYPI_URL"); index && *index) cmd.env.emplace_back("OPMATRIX_PYPI_URL", index);
    const std::string repro = engine_.display(image_, cell_, cmd);
    ProcessResult r = step(cmd, "", [](const ProcessResult& pr) { return pr.exit_code == 1; });
    nlohmann::json j = nlohmann::json::parse(r.stdout_text, nullptr, false);
    const CheckResult c = fetch_check(j, {cell_.project->label(), repro, read_text_file(log_path("fetch")),
                                          engine_.host_downloads_dir(), r.seconds, r.timed_out, r.exit_code});
    if (c.status == Status::pass) fetched_ = json_text(j, "path");
    result_.checks.push_back(c);
    return c.status == Status::pass && !fetched_.empty();
  }

  // Where the project's sources are: a path project's folder under /src, a pypi: sdist's
  // extracted copy in the build folder, a wheel's build folder (it has no sources).
  std::string project_dir_in_cell() const {
    const Project& p = *cell_.project;
    if (!p.pypi.empty()) return paths_.build + "/src";
    if (!p.wheel.empty()) return paths_.build;
    return paths_.src + "/" + p.path;
  }
  std::string project_dir_on_host() const {
    const Project& p = *cell_.project;
    if (!p.pypi.empty()) return engine_.host_build_dir(cell_) + "/src";
    if (!p.wheel.empty()) return engine_.host_build_dir(cell_);
    return engine_.config().repo_root + "/" + p.path;
  }

  // The archs this cell's nvcc can compile for; each declared arch becomes an `arch` check.
  void supported_archs() {
    const std::string root = json_text(result_.versions, "cuda_root");
    const std::string nvcc = root.empty() ? std::string("nvcc") : root + "/bin/nvcc";
    ProcessResult r = step([&] {
      StepCommand c = command("archs", {nvcc, "--list-gpu-arch"}, timeout_of("archs"));
      c.capture_stdout = true;
      return c;
    }(), "arch");
    // nvcc that did not answer says nothing about any arch: step() recorded why.
    if (!r.ok()) return;
    const std::vector<std::string> parsed = parse_nvcc_gpu_archs(r.stdout_text);
    const std::set<std::string> listed(parsed.begin(), parsed.end());
    const std::string nvcc_version = (json_text(result_.versions, "nvcc").empty() ? std::string("?") : json_text(result_.versions, "nvcc"));
    for (const auto& arch : cell_.cuda_archs) {
      CheckResult c;
      c.check = "arch";
      c.arch = arch;
      const std::string sm = cmake_arch(arch);
      std::string plain = sm;
      if (!plain.empty() && (plain.back() == 'a' || plain.back() == 'f')) plain.pop_back();
      if (listed.count(sm) || listed.count(plain)) {
        c.status = Status::pass;
        c.message = fmt::format("nvcc {} targets sm_{}", nvcc_version, sm);
        archs_.push_back(sm);
      } else {
        c.status = Status::fail;
        c.message = fmt::format("nvcc {} cannot target sm_{} (its --list-gpu-arch: {})", nvcc_version, sm,
                                fmt::join(listed, " "));
        Diagnosis d;
        d.kind = "unsupported_arch";
        d.summary = c.message + "; users of that GPU get \"nvrtc: error: invalid value for --gpu-architecture\"";
        d.fix = "use a CUDA toolkit that supports it (sm_100/sm_120 need 12.8+; CUDA 13 dropped sm_70 and older), "
                "or expect it as xfail for this cell";
        d.repro = engine_.display(image_, cell_, command("archs", {nvcc, "--list-gpu-arch"}, timeout_of("archs")));
        c.diagnosis = d;
      }
      result_.checks.push_back(c);
    }
  }

  // Runs a cell script that prints one JSON object; a failed step is recorded as `check`.
  nlohmann::json script_json(const std::string& step_name, const std::string& script, std::vector<std::string> args,
                             const std::string& check, std::string* repro = nullptr,
                             const std::vector<std::pair<std::string, std::string>>& env = {}) {
    std::vector<std::string> argv = {paths_.scripts + "/python.sh", paths_.scripts + "/" + script};
    argv.insert(argv.end(), args.begin(), args.end());
    StepCommand cmd = command(step_name, argv, timeout_of(step_name));
    cmd.env.insert(cmd.env.end(), env.begin(), env.end());
    cmd.capture_stdout = true;
    if (repro) *repro = engine_.display(image_, cell_, cmd);
    ProcessResult r = step(cmd, check);
    if (!r.ok()) return nlohmann::json();
    nlohmann::json j = nlohmann::json::parse(r.stdout_text, nullptr, false);
    if (!j.is_object()) {
      result_.checks.push_back({"", check, "", Status::error, step_name + ": the script printed no JSON", "", r.seconds,
                                {}, std::nullopt});
      return nlohmann::json();
    }
    return j;
  }

  // A script check (checks/registry.h): the script reports its own results, in the form
  // checks/script_checks.h describes, about the libraries the build made.
  bool script_check(const StepSpec& spec) {
    const CheckSpec* check = nullptr;
    for (const auto& sc : script_check_registry())
      if (sc.step.name == spec.name) check = &sc.check;
    if (!check) {  // a registry step nobody runs: a harness bug, said where it shows
      result_.checks.push_back({"", "build", "", Status::error, "the harness has no runner for step " + spec.name, "",
                                0, {}, std::nullopt});
      return false;
    }
    const Project* p = cell_.project ? &*cell_.project : nullptr;
    const std::vector<std::string>& ops = p ? p->ops : matrix_.ops;
    const std::vector<std::pair<std::string, std::string>> env = {
        {"OPMATRIX_NAMESPACE", p ? p->ns : std::string("opmatrix")},
        {"OPMATRIX_OPS", fmt::format("{}", fmt::join(ops, ","))},
        {"OPMATRIX_CUDA_ARCHS", fmt::format("{}", fmt::join(cell_.cuda_archs, ","))},
        {"OPMATRIX_BUILD", paths_.build},
        {"OPMATRIX_BUILD_JOBS", std::to_string(settings_.build_jobs)},
        {"OPMATRIX_PROJECT_DIR", p ? project_dir_in_cell() : std::string()},
        {"OPMATRIX_IMPORT", p ? p->import_module : std::string()},
        {"OPMATRIX_SAMPLES", samples_in_cell()}};
    std::vector<std::pair<std::string, std::string>> all = env;
    for (auto& kv : project_env()) all.push_back(kv);
    std::string repro;
    nlohmann::json j = script_json(spec.name, spec.script, built_libraries_, check->name, &repro, all);
    if (!j.is_object()) return false;
    bool ok = true;
    for (auto& c : script_checks(j, check->name, repro)) {
      ok = ok && !is_bad(c.status);
      result_.checks.push_back(std::move(c));
    }
    return ok;
  }

  // The samples the behaviour checks run (docs/checks.md): a project's `samples:` file, or
  // cases/samples.py for opmatrix's own kernels; "" when a project declares none.
  std::string samples_in_cell() const {
    if (!cell_.project) return paths_.src + "/cases/samples.py";
    return cell_.project->samples.empty() ? "" : paths_.src + "/" + cell_.project->samples;
  }

  // Does the cell's NVRTC accept each declared arch (what torch's runtime compilation uses).
  void nvrtc() {
    std::vector<std::string> args = {"--cuda-root", json_text(result_.versions, "cuda_root")};
    args.insert(args.end(), cell_.cuda_archs.begin(), cell_.cuda_archs.end());
    std::string repro;
    nlohmann::json j = script_json("nvrtc", "nvrtc_probe.py", args, "nvrtc", &repro);
    if (j.is_object())
      for (auto& c : nvrtc_checks(j, cell_.cuda_archs, repro)) result_.checks.push_back(std::move(c));
  }

  // Which SASS / PTX each built library carries, against every declared arch.
  void fatbin() {
    for (const auto& lib : built_libraries_) {
      std::string repro;
      nlohmann::json j = script_json("fatbin", "fatbin.py", {"--cuda-root", json_text(result_.versions, "cuda_root"), lib},
                                     "fatbin", &repro);
      if (!j.is_object()) continue;
      const bool device_code =
          !j.value("elf", nlohmann::json::array()).empty() || !j.value("ptx", nlohmann::json::array()).empty();
      if (json_text(j, "error").empty()) {
        ++fatbin_read_;
        if (device_code) ++with_device_code_;
      }
      for (auto& c : fatbin_checks(j, cell_.cuda_archs, repro)) {
        if (!device_code && json_text(j, "error").empty()) host_only_fatbin_.push_back(result_.checks.size());
        result_.checks.push_back(std::move(c));
      }
    }
  }

  // "Built with CUDA" only when a built library holds device code. A CUDA cell whose build
  // made none gets one red on `build` naming why; the reds that only follow from it (fatbin
  // per arch, a missing CUDA kernel) become skips pointing there, not findings with wrong fixes.
  void reconcile_cuda_build() {
    if (!cell_.has_cuda() || !built_ || fatbin_read_ == 0) return;
    auto build = std::find_if(result_.checks.begin(), result_.checks.end(),
                              [](const CheckResult& c) { return c.check == "build" && c.status == Status::pass; });
    if (build == result_.checks.end()) return;
    if (with_device_code_ > 0) {
      if (cell_.project)
        build->message += fmt::format(" with CUDA (device code in {} of {} libraries)", with_device_code_, fatbin_read_);
      // A package ships host-only libraries next to its CUDA ones (torch-scatter's
      // _scatter_cpu.so beside _scatter_cuda.so): the archs are judged on those with device code.
      for (std::size_t i : host_only_fatbin_) {
        CheckResult& c = result_.checks[i];
        if (c.status != Status::fail) continue;
        c.status = Status::skip;
        c.message = c.message.substr(0, c.message.find(' ')) +
                    " is a host-only library (no SASS, no PTX): the archs are judged on the libraries that hold device code";
        c.diagnosis.reset();
      }
      return;
    }
    build->status = Status::fail;
    Diagnosis d;
    d.kind = "built_cpu_only";
    d.repro = fmt::format("opmatrix run --cell {}", cell_.id);
    const Project* p = cell_.project ? &*cell_.project : nullptr;
    const std::string setup = p ? read_text_file(project_dir_on_host() + "/setup.py") : "";
    const auto gate = setup.find("cuda.is_available()");
    if (gate != std::string::npos) {
      const std::size_t bol = setup.rfind('\n', gate) == std::string::npos ? 0 : setup.rfind('\n', gate) + 1;
      d.evidence = "setup.py: " + setup.substr(bol, setup.find('\n', gate) - bol);  // npos - bol: to the end
      d.summary = fmt::format("CUDA promised, built CPU-only: setup.py enables CUDA only when a GPU is visible "
                              "(torch.cuda.is_available() at build time){}; no built library holds device code",
                              setup.find("FORCE_CUDA") == std::string::npos ? " and ignores FORCE_CUDA=1" : "");
      d.fix = "enable the CUDA extension when FORCE_CUDA=1 or CUDA_HOME is set (torch.utils.cpp_extension.CUDA_HOME), "
              "not only when a GPU is visible: build machines and CI runners have none";
    } else {
      d.summary = "CUDA promised, built CPU-only: no built library holds device code (no SASS, no PTX)";
      d.fix = p && p->kind == "cmake"   ? "compile the CUDA sources when OPMATRIX_WITH_CUDA=ON (CMAKE_CUDA_ARCHITECTURES is set)"
              : p && p->kind == "wheel" ? "this wheel is a CPU build: a CUDA cell needs the library's CUDA wheel"
                                        : "compile the CUDA sources when FORCE_CUDA=1 (TORCH_CUDA_ARCH_LIST is set)";
      d.evidence = "fatbin: no SASS or PTX in " + fmt::format("{}", fmt::join(built_libraries_, ", "));
    }
    build->message = d.summary;
    build->diagnosis = d;
    for (auto& c : result_.checks) {
      const bool only_cuda_missing = c.check == "registration" && c.status == Status::fail &&
                                     c.message.size() > 16 && c.message.compare(c.message.size() - 16, 16, ": no CUDA kernel") == 0;
      if (c.check == "fatbin" || only_cuda_missing) {
        c.status = Status::skip;
        c.message += " — follows from the CPU-only build (see build)";
        c.diagnosis.reset();
      }
    }
  }

  // dlopen(RTLD_NOW) of the built libraries in this cell's own torch; with a namespace, also
  // which ops registered which kernels.
  void load_libraries(std::vector<std::string> libraries, const std::string& find_under) {
    std::vector<std::string> args;
    const Project* p = cell_.project ? &*cell_.project : nullptr;
    if (p && !p->ns.empty()) {
      args = {"--namespace", p->ns};
      if (!p->ops.empty()) args.insert(args.end(), {"--ops", fmt::format("{}", fmt::join(p->ops, ","))});
    }
    if (p && !p->import_module.empty()) args.insert(args.end(), {"--import", p->import_module});
    if (!find_under.empty()) args.insert(args.end(), {"--find", find_under});
    args.insert(args.end(), libraries.begin(), libraries.end());
    std::string repro;
    nlohmann::json j = script_json("load", "load_library.py", args, "load", &repro, project_env());
    if (!j.is_object()) return;
    for (auto& c : load_checks(j, repro)) result_.checks.push_back(std::move(c));
    if (j.contains("libraries"))
      for (const auto& lib : j["libraries"]) built_libraries_.push_back(lib.value("path", ""));
    if (j.contains("import")) result_.checks.push_back(import_check(j["import"], repro));
    if (p && !p->ns.empty())
      for (auto& c : namespace_checks(j, p->ns, cell_.has_cuda(), repro)) result_.checks.push_back(std::move(c));
    else if (p)
      result_.checks.push_back(not_a_dispatcher_library(j, repro));
  }

  void load() {
    if (cell_.project) load_libraries({}, project_output());
    else load_libraries({paths_.build + "/" + kOwnLibrary}, "");
  }

  // Where a project's build leaves what users get: a CMake build folder, or the folder its
  // wheel was installed into (on PYTHONPATH for every step after the build).
  std::string project_output() const {
    return cell_.project && cell_.project->kind != "cmake" ? paths_.build + "/site" : paths_.build;
  }

  std::vector<std::pair<std::string, std::string>> project_env() const {
    if (!cell_.project || cell_.project->kind == "cmake") return {};
    return {{"PYTHONPATH", project_output()}};
  }

  // Runs a command from the project's folder (argv only: the folder is an argument, never
  // spliced into the script text).
  std::vector<std::string> in_project_dir(const std::vector<std::string>& argv) const {
    std::vector<std::string> out = {"sh", "-c", "cd \"$1\" && shift && exec \"$@\"", "sh", project_dir_in_cell()};
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
  }

  // CMake against the cell's torch, CUDA on exactly when the cell promises it; `archs_var`
  // names the variable the project reads its CUDA archs from.
  std::vector<std::string> configure_argv(const std::string& source, const std::string& archs_var,
                                          const std::vector<std::string>& archs) const {
    std::vector<std::string> argv = {"cmake", "-S", source, "-B", paths_.build, "-G", "Ninja",
                                     "-DCMAKE_BUILD_TYPE=Release",
                                     "-DCMAKE_PREFIX_PATH=" + json_text(result_.versions, "torch_cmake_prefix"),
                                     std::string("-DOPMATRIX_WITH_CUDA=") + (cell_.has_cuda() ? "ON" : "OFF")};
    // Every image has ccache; a host (a GPU machine as it is) may not: compiling then must
    // not fail with "ccache: not found".
    const bool ccache = engine_.name() != "host" || on_path("ccache");
    if (ccache) argv.push_back("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache");
    if (cell_.has_cuda()) {
      if (ccache) argv.push_back("-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache");
      argv.push_back(fmt::format("-D{}={}", archs_var, fmt::join(archs, ";")));
    }
    return argv;
  }

  // kernels/ + cases/, or a CMake project, against the cell's torch. A setup.py project has
  // no configure step.
  bool configure() {
    const Project* p = cell_.project ? &*cell_.project : nullptr;
    if (p && p->kind != "cmake") return configured_ = true;
    StepCommand cmd = p ? command("configure", configure_argv(project_dir_in_cell(), "CMAKE_CUDA_ARCHITECTURES", archs_),
                                  timeout_of("configure"))
                        : command("configure", configure_argv(paths_.src + "/cases", "OPMATRIX_CUDA_ARCHS", archs_),
                                  timeout_of("configure"));
    // torch's own CMake picks archs from this (else from a GPU, else a long default list).
    if (p && cell_.has_cuda()) cmd.env.emplace_back("TORCH_CUDA_ARCH_LIST", torch_arch_list(archs_));
    ProcessResult r = step(cmd, "build");
    build_seconds_ = r.seconds;
    return configured_ = r.ok();
  }

  // Another op library (docs/projects.md) builds with its own CMake or setup.py, CUDA on
  // exactly when the cell promises it; opmatrix's kernels and cases with cases/' CMake.
  bool build() {
    if (!configured_) return false;
    const Project* p = cell_.project ? &*cell_.project : nullptr;
    const std::string jobs = std::to_string(settings_.build_jobs);
    StepCommand cmd = command("build", {"cmake", "--build", paths_.build, "-j", jobs}, timeout_of("build"));
    if (p && p->kind != "cmake") {
      // Built as users get it: a wheel against the cell's torch, installed into project_output().
      cmd.argv = {paths_.scripts + "/python.sh", paths_.scripts + "/build_wheel.py",
                  p->pypi.empty() ? paths_.src + "/" + p->path : fetched_, paths_.build};
      if (!p->wheel.empty()) cmd.argv = {paths_.scripts + "/python.sh", paths_.scripts + "/install_wheel.py", fetched_, paths_.build};
      cmd.capture_stdout = true;
      cmd.env.emplace_back("MAX_JOBS", jobs);
      cmd.env.emplace_back("FORCE_CUDA", cell_.has_cuda() ? "1" : "0");
      if (cell_.has_cuda()) cmd.env.emplace_back("TORCH_CUDA_ARCH_LIST", torch_arch_list(archs_));
    }
    ProcessResult b = step(cmd, "build");
    if (!b.ok()) return false;
    const std::string out = b.stdout_text.substr(b.stdout_text.rfind('\n', b.stdout_text.size() > 1 ? b.stdout_text.size() - 2 : 0) + 1);
    wheel_ = cmd.capture_stdout ? nlohmann::json::parse(out, nullptr, false) : nlohmann::json();
    CheckResult built;
    built.check = "build";
    built.status = Status::pass;
    // CUDA cells: whether device code was built is the fatbin step's to say (reconcile_cuda_build).
    const std::string what = !p ? "kernels and cases" : fmt::format("{} project {}", p->kind, p->label());
    const std::string wheel = wheel_.is_object() ? " as " + fs::path(json_text(wheel_, "wheel")).filename().string() : "";
    built.message = !p ? fmt::format("{} built{}", what, cell_.has_cuda() ? " with CUDA kernels" : " (CPU only)")
                    : !p->wheel.empty() ? fmt::format("prebuilt {} installed with pip install --no-deps next to torch {}",
                                                      fs::path(fetched_).filename().string(), cell_.torch)
                                        : fmt::format("{} built{}{}", what, wheel, cell_.has_cuda() ? "" : " (CPU only)");
    built.seconds = build_seconds_ + b.seconds;
    result_.checks.push_back(built);
    built_ = true;
    return true;
  }

  void smoke() {
    const Project& p = *cell_.project;
    if (p.smoke.empty()) return;
    StepCommand cmd = command("smoke", in_project_dir(p.smoke), timeout_of("smoke"));
    cmd.env.emplace_back("OPMATRIX_PROJECT_BUILD", project_output());
    for (auto& kv : project_env()) cmd.env.push_back(kv);
    ProcessResult r = step(cmd, "smoke");
    if (r.ok()) result_.checks.push_back({"", "smoke", "", Status::pass, "the smoke command passed", "", r.seconds, {}, std::nullopt});
  }

  // How a Python user sees torchvision in this cell (import + registrations).
  void torchvision_python_view() {
    StepCommand cmd = command("torchvision", {paths_.scripts + "/python.sh",
                                              paths_.scripts + "/torchvision_registrations.py"},
                              timeout_of("torchvision"));
    cmd.capture_stdout = true;
    ProcessResult r = step(cmd, "torchvision");
    tv_python_ = nlohmann::json::parse(r.stdout_text, nullptr, false);
    tv_step_failed_ = !r.ok();
    if (!tv_step_failed_ && !tv_python_.is_object())
      result_.checks.push_back({"", "torchvision", "", Status::error, "torchvision: the script printed no JSON", "",
                                r.seconds, {}, std::nullopt});
  }

  // How a C++ user sees it: the generic registration binary dlopens torchvision's _C library.
  std::string torchvision_cpp_view() {
    const std::string ext = json_text(result_.versions, "torchvision_ext");
    if (!built_ || cell_.project || ext.empty()) return "";
    const std::string out_json = "/torchvision-registration.json";
    StepCommand cmd = command("torchvision-cpp", {paths_.build + "/registration",
                                                  "--gtest_output=json:" + paths_.build + out_json}, timeout_of("torchvision-cpp"));
    cmd.env.emplace_back("OPMATRIX_REG_NAMESPACE", "torchvision");
    cmd.env.emplace_back("OPMATRIX_REG_LIBRARY", ext);
    cmd.env.emplace_back("OPMATRIX_REG_OPS", "nms,roi_align,deform_conv2d");
    const bool torch_cuda = result_.versions.contains("torch_cuda") && result_.versions["torch_cuda"].is_string();
    for (auto& [k, v] : cmd.env)
      if (k == "OPMATRIX_EXPECT_CUDA") v = torch_cuda ? "1" : "0";
    const std::string host_json = engine_.host_build_dir(cell_) + out_json;
    fs::remove(host_json);
    nlohmann::json j;
    // Missing torchvision kernels make the binary exit 1 after writing its results; that is
    // data for the torchvision check, not a failure of the step.
    step(cmd, "", [&](const ProcessResult& r) {
      j = nlohmann::json::parse(read_text_file(host_json), nullptr, false);
      return r.exit_code == 1 && j.is_object();
    });
    if (!j.is_object()) j = nlohmann::json::parse(read_text_file(host_json), nullptr, false);
    // A registration binary that died says nothing about torchvision's kernels: the cell's
    // results must show it (step() records no check for this step).
    const StepResult& s = result_.steps.back();
    if (s.status == Status::crash || s.status == Status::timeout) {
      StepFailure f{"torchvision-cpp", read_text_file(cmd.log_path), s.exit_code, s.signal, s.status == Status::timeout,
                    cmd.timeout_s, s.command};
      Diagnosis d = diagnose_step(f);
      result_.checks.push_back({"", "torchvision", "", s.status, "torchvision's C++ view: " + d.summary, "", s.seconds,
                                {}, d});
    }
    if (!j.is_object()) return "the registration binary wrote no results";
    return summarize_registration_json(j);
  }

  void torchvision_verdict() {
    if (tv_step_failed_ || !tv_python_.is_object()) return;  // step() already recorded the error
    try {
      result_.checks.push_back(check_torchvision(cell_, tv_python_, torchvision_cpp_view()));
    } catch (const std::exception& e) {
      // Odd findings must not take the harness down with the cell's other results.
      result_.checks.push_back({"", "torchvision", "", Status::error,
                                std::string("could not read torchvision's findings: ") + e.what(), "", 0, {}, std::nullopt});
    }
  }

  void test() {
    const std::string host_gtest = engine_.host_build_dir(cell_) + "/gtest";
    fs::remove_all(host_gtest);
    fs::create_directories(host_gtest);
    // One ctest test per case binary; per-test verdicts from gtest's JSON, or from the
    // console output of a binary that died (kept whole: --test-output-size-failed).
    StepCommand cmd = command("test", {"ctest", "--test-dir", paths_.build, "--output-on-failure",
                                       "--test-output-size-failed", "4194304", "--timeout",
                                       fmt::format("{:.0f}", settings_.per_test_timeout_s), "-j",
                                       std::to_string(settings_.build_jobs)},
                              timeout_of("test"));
    cmd.env.emplace_back("GTEST_OUTPUT", "json:" + paths_.build + "/gtest/");
    ProcessResult r = step(cmd, "");
    std::vector<TestOutcome> outcomes = collect_test_outcomes(read_text_file(cmd.log_path), host_gtest);
    if (outcomes.empty()) {
      CheckResult c;
      c.check = "test";
      c.status = r.timed_out ? Status::timeout : r.signal != 0 ? Status::crash : Status::error;
      c.message = "no test results: no case binary ran (see the test log)";
      StepFailure f{"test", read_text_file(cmd.log_path), r.exit_code, r.signal, r.timed_out, cmd.timeout_s,
                    engine_.display(image_, cell_, cmd)};
      c.diagnosis = diagnose_step(f);
      c.message += ": " + c.diagnosis->summary;
      result_.checks.push_back(c);
      return;
    }
    // One check result per op x check; the worst test decides, its failure explains.
    std::map<std::pair<std::string, std::string>, std::vector<const TestOutcome*>> groups;
    for (const auto& o : outcomes) groups[{o.op, o.check.empty() ? "unknown" : o.check}].push_back(&o);
    for (const auto& [key, tests] : groups) {
      CheckResult c;
      c.op = key.first;
      c.check = key.second;
      std::vector<Status> statuses;
      for (const TestOutcome* t : tests) {
        statuses.push_back(t->status);
        c.tests.push_back(t->name);
        c.seconds += t->seconds;
      }
      c.status = worst_of(statuses);
      for (const TestOutcome* t : tests) {
        if (t->status != c.status) continue;
        c.message = t->message.substr(0, 2000);
        if (is_bad(c.status)) {
          std::vector<std::string> repro = {paths_.build + "/" + t->binary};
          if (t->name.find('.') != std::string::npos && t->name.find(' ') == std::string::npos)
            repro.push_back("--gtest_filter=" + t->name);
          StepCommand one = command("test", repro, 0);
          one.env.clear();
          one.env.emplace_back("OPMATRIX_EXPECT_CUDA", cell_.has_cuda() ? "1" : "0");
          c.diagnosis = diagnose_test(*t, engine_.display(image_, cell_, one));
          if (c.message.empty()) c.message = c.diagnosis->summary;
        }
        break;
      }
      if (c.status == Status::pass) c.message = fmt::format("{} test{} passed", tests.size(), tests.size() == 1 ? "" : "s");
      result_.checks.push_back(c);
    }
  }

  const Matrix& matrix_;
  const Cell& cell_;
  Engine& engine_;
  const RunSettings& settings_;
  const Progress& progress_;
  CellPaths paths_;
  std::string log_dir_;
  std::string image_;
  int fatbin_read_ = 0, with_device_code_ = 0;  // built libraries fatbin read / that hold SASS or PTX
  nlohmann::json wheel_;  // build_wheel.py's report (setup.py projects)
  std::string fetched_;   // a pypi:/wheel: project's file, as the cell sees it
  std::vector<std::size_t> host_only_fatbin_;  // result_.checks indices: fatbin checks of libraries without device code
  bool configured_ = false;
  bool built_ = false;
  double build_seconds_ = 0;       // the configure step's
  std::vector<std::string> archs_; // declared archs the cell's nvcc can target, CMake spelling
  bool tv_step_failed_ = false;
  std::vector<std::string> built_libraries_;  // as the cell sees them
  nlohmann::json tv_python_;
  CellResult result_;
};

}  // namespace

std::string step_log_path(const std::string& results_dir, const std::string& cell_id, const std::string& step) {
  return results_dir + "/logs/" + cell_id + "/" + step + ".log";
}

double step_timeout(const Cell& cell, const std::string& step) {
  for (const auto& [s, seconds] : cell.timeouts)
    if (s == step) return seconds;
  const StepSpec* spec = find_step(step);
  return spec ? spec->timeout_s : 600;
}

CellResult run_cell(const Matrix& matrix, const Cell& cell, Engine& engine, const RunSettings& settings,
                    const Progress& progress) {
  return CellRun(matrix, cell, engine, settings, progress).run();
}

CellResult skipped_cell(const Cell& cell, const std::string& reason) {
  CellResult r;
  r.harness_version = kOpmatrixVersion;
  r.cell = cell_to_json(cell);
  r.started_at = now_iso8601();
  r.status = Status::skip;
  r.checks.push_back({"", "cell", "", Status::skip, reason, "", 0, {}, std::nullopt});
  return r;
}

void apply_expectations(const Cell& cell, CellResult& result) {
  for (auto& c : result.checks) {
    // torchvision's own ops, judged in the same cell, are another library: an entry covers
    // them only when it names one (op: torchvision::NAME), never as "every op".
    const bool torchvision_op = c.op.rfind("torchvision::", 0) == 0;
    for (const auto& x : cell.expect) {
      if (x.check != c.check || (!x.op.empty() && x.op != c.op) || (x.op.empty() && torchvision_op) ||
          (!x.arch.empty() && x.arch != c.arch) || (!x.subtest.empty() && x.subtest != c.subtest))
        continue;
      c.expected_reason = x.reason;
      if (x.status == "skip") {
        c.status = Status::skip;
        c.message = "skipped as expected: " + x.reason;
      } else if (c.status == Status::pass) {
        c.status = Status::xpass;
      } else if (is_bad(c.status)) {
        c.status = Status::xfail;
      }
      break;
    }
  }
  std::vector<Status> statuses;
  for (const auto& c : result.checks) statuses.push_back(c.status);
  result.status = statuses.empty() ? Status::error : worst_of(statuses);
  result.meets_expectations = result.status != Status::skip ? !is_bad(result.status) : true;
}

}  // namespace opmatrix
