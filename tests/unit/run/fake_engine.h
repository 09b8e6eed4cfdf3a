// A fake Engine for unit tests of run_cell: it runs nothing and replays canned step outputs.
//
// For each step name (StepCommand::step: probe, torchvision, archs, nvrtc, configure, build,
// load, test, smoke, fatbin, torchvision-cpp, and each script check's own step, e.g.
// duplicate-extensions) a test scripts a CannedStep: the ProcessResult
// run_step returns (exit code, signal, timed_out, started/start_error, stdout_text for
// capture_stdout steps), text appended to the step's log (cmd.log_path, as a real engine
// appends the program's output) and files written into the cell's host build folder
// (engine.host_build_dir(cell)), e.g. gtest JSON under gtest/ for the test step. Files and
// logs are written when the step runs (the runner clears both before some steps).
//
// A canned output can also be keyed on a piece of the argv (the script's name:
// "load_library.py"), and a list of them is replayed call by call (the last one repeats).
// Every StepCommand is recorded, in order, so tests can assert order, argv, env, timeouts.
// Steps nobody scripted succeed with exit 0 and no output, and are listed in unscripted().
//
// Only the public interface (Engine, StepCommand, ProcessResult) is used: the runner's
// internals may change freely.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "engine/process.h"

namespace opmatrix::fake {

struct CannedStep {
  ProcessResult result = ok_result();
  std::string log_text;  // appended to cmd.log_path
  // Written (path -> content) when the step runs. A path is relative to
  // engine.host_build_dir(cell), or starts with
  //   "@gtest_output"  the file the command's --gtest_output=json:FILE argument names,
  //   "@GTEST_OUTPUT/" the folder its GTEST_OUTPUT=json:DIR/ environment variable names,
  // both seen from the host (the in-cell build folder mapped to host_build_dir).
  std::vector<std::pair<std::string, std::string>> host_build_files;

  static ProcessResult ok_result() {
    ProcessResult r;
    r.started = true;
    r.exit_code = 0;
    r.seconds = 0.5;
    return r;
  }

  // Exit 0, printing `stdout_text` (for capture_stdout steps: the script's JSON).
  static CannedStep prints(std::string stdout_text, std::string log = "") {
    CannedStep c;
    c.result.stdout_text = std::move(stdout_text);
    c.log_text = std::move(log);
    return c;
  }
  static CannedStep exits(int code, std::string log = "") {
    CannedStep c;
    c.result.exit_code = code;
    c.log_text = std::move(log);
    return c;
  }
  static CannedStep killed_by(int signal, std::string log = "") {
    CannedStep c;
    c.result.exit_code = -1;
    c.result.signal = signal;
    c.log_text = std::move(log);
    return c;
  }
  static CannedStep times_out(std::string log = "") {
    CannedStep c;
    c.result.exit_code = -1;
    c.result.signal = 15;  // process.cpp stops the group with SIGTERM (SIGKILL 2 s later)
    c.result.timed_out = true;
    c.log_text = std::move(log);
    return c;
  }
  static CannedStep cannot_start(std::string why) {
    CannedStep c;
    c.result.started = false;
    c.result.exit_code = -1;
    c.result.seconds = 0;
    c.result.start_error = std::move(why);
    return c;
  }
  CannedStep& with_file(std::string relative_path, std::string content) {
    host_build_files.emplace_back(std::move(relative_path), std::move(content));
    return *this;
  }
  CannedStep& with_log(std::string text) {
    log_text += text;
    return *this;
  }
  CannedStep& with_stdout(std::string text) {
    result.stdout_text = std::move(text);
    return *this;
  }
};

class FakeEngine : public Engine {
 public:
  // `kind` "host" behaves as the host engine does where the runner can see it (name() "host",
  // real paths); any other kind as a container engine (paths /src, /build, /ccache).
  explicit FakeEngine(const std::string& work_dir, const std::string& kind = "fake",
                      const std::string& repo_root = "/repo")
      : Engine(make_config(work_dir, kind, repo_root)) {
    image.ok = true;
    image.built = false;
    image.tag = "localhost/opmatrix-cell:fake0123";
  }

  // ---- scripting ----
  FakeEngine& on(const std::string& step, CannedStep canned) { return on(step, "", {std::move(canned)}); }
  // Keyed on the step and a piece of one argv element (e.g. the script's file name).
  FakeEngine& on(const std::string& step, const std::string& argv_contains, CannedStep canned) {
    return on(step, argv_contains, std::vector<CannedStep>{std::move(canned)});
  }
  // Replayed call by call; the last one repeats.
  FakeEngine& on(const std::string& step, const std::string& argv_contains, std::vector<CannedStep> sequence) {
    for (auto it = scripts_.begin(); it != scripts_.end(); ++it)
      if (it->step == step && it->argv_contains == argv_contains) {
        scripts_.erase(it);
        break;
      }
    scripts_.push_back({step, argv_contains, std::move(sequence), 0});
    return *this;
  }
  // Called with every command before its canned output is replayed (extra assertions, or
  // looking at the host folders as the step would find them).
  std::function<void(const StepCommand&)> before_step;

  // What ensure_image returns, and the text it writes to the image log.
  ImageOutcome image;
  std::string image_log;
  // The engine's id of every image ("": none, as the host engine has).
  std::string id_of_image;
  std::string image_id(const std::string& /*tag*/) override { return id_of_image; }

  // ---- what happened ----
  std::vector<StepCommand> commands;
  std::vector<std::string> images_used;  // the image argument of every run_step
  int ensure_image_calls = 0;
  std::string image_log_path;
  double image_timeout_s = 0;

  std::vector<std::string> step_names() const {
    std::vector<std::string> names;
    for (const auto& c : commands) names.push_back(c.step);
    return names;
  }
  std::vector<const StepCommand*> commands_for(const std::string& step) const {
    std::vector<const StepCommand*> out;
    for (const auto& c : commands)
      if (c.step == step) out.push_back(&c);
    return out;
  }
  const StepCommand* command(const std::string& step) const {
    for (const auto& c : commands)
      if (c.step == step) return &c;
    return nullptr;
  }
  const std::vector<std::string>& unscripted() const { return unscripted_; }
  // Forgets what was recorded (not the scripts, nor how far their sequences got): for a test
  // that runs a cell more than once.
  void clear_records() {
    commands.clear();
    images_used.clear();
    unscripted_.clear();
    ensure_image_calls = 0;
    image_log_path.clear();
    image_timeout_s = 0;
  }

  // ---- Engine ----
  std::string name() const override { return config_.kind; }
  std::optional<std::string> unavailable_reason() override { return std::nullopt; }

  ImageOutcome ensure_image(const Cell&, const std::string& log_path, double timeout_s) override {
    ++ensure_image_calls;
    image_log_path = log_path;
    image_timeout_s = timeout_s;
    if (!image_log.empty()) append(log_path, image_log);
    return image;
  }

  std::string planned_image(const Cell&) override { return config_.kind == "host" ? "" : image.tag; }

  CellPaths paths(const Cell& cell) const override {
    if (config_.kind == "host") return {config_.repo_root, host_build_dir(cell), host_ccache_dir(), "/opmatrix-data/scripts/cell",
                                         host_downloads_dir()};
    return {"/src", "/build", "/ccache", "/opmatrix/cell", "/downloads"};
  }

  ProcessResult run_step(const std::string& image_tag, const Cell& cell, const StepCommand& cmd) override {
    if (cmd.step == "shared-steps") return run_shared_steps(image_tag, cell, cmd);
    commands.push_back(cmd);
    images_used.push_back(image_tag);
    if (before_step) before_step(cmd);
    Script* script = find(cmd);
    if (!script) {
      unscripted_.push_back(cmd.step);
      return CannedStep::ok_result();
    }
    const CannedStep& canned = script->sequence[std::min(script->calls, script->sequence.size() - 1)];
    ++script->calls;
    if (!canned.log_text.empty()) append(cmd.log_path, canned.log_text);
    for (const auto& [rel, content] : canned.host_build_files) {
      const std::filesystem::path p = host_path_for(cell, cmd, rel);
      std::filesystem::create_directories(p.parent_path());
      std::ofstream(p, std::ios::binary) << content;
    }
    ProcessResult r = canned.result;
    if (!cmd.capture_stdout) r.stdout_text.clear();  // as run_process: stdout went to the log
    return r;
  }

  // What scripts/cell/run_steps.py does in one container: each step it is given, replayed as
  // if it had run alone (recorded in `commands` as that step, its canned output), answered as
  // the driver's JSON. The shared command itself is recorded in `shared_commands`.
  std::vector<StepCommand> shared_commands;
  bool fail_shared_steps = false;  // the shared container fails as a whole (exit 125, no JSON)
  ProcessResult run_shared_steps(const std::string& image_tag, const Cell& cell, const StepCommand& cmd) {
    shared_commands.push_back(cmd);
    if (fail_shared_steps) return CannedStep::exits(125, "").result;
    nlohmann::json out = {{"steps", nlohmann::json::array()}};
    for (const auto& s : nlohmann::json::parse(cmd.argv.back())) {
      StepCommand member = cmd;
      member.step = s["step"].get<std::string>();
      member.argv = s["argv"].get<std::vector<std::string>>();
      member.timeout_s = s["timeout_s"].get<double>();
      member.log_path = (std::filesystem::path(cmd.log_path).parent_path() / (member.step + ".log")).string();
      const ProcessResult r = run_step(image_tag, cell, member);
      std::ifstream log(member.log_path, std::ios::binary);
      const std::string log_text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
      std::filesystem::remove(member.log_path);
      out["steps"].push_back({{"step", member.step}, {"exit_code", r.exit_code}, {"signal", r.signal},
                              {"timed_out", r.timed_out}, {"seconds", r.seconds}, {"stdout", r.stdout_text},
                              {"log", log_text}});
    }
    ProcessResult r = CannedStep::ok_result();
    r.stdout_text = out.dump();
    return r;
  }

  std::string display(const std::string& image_tag, const Cell&, const StepCommand& cmd) const override {
    std::vector<std::string> argv = {"fake-run", image_tag};
    for (const auto& [k, v] : cmd.env) argv.push_back(k + "=" + v);
    argv.insert(argv.end(), cmd.argv.begin(), cmd.argv.end());
    return shell_quote_for_display(argv);
  }

 private:
  struct Script {
    std::string step;
    std::string argv_contains;
    std::vector<CannedStep> sequence;
    std::size_t calls;
  };

  static EngineConfig make_config(const std::string& work_dir, const std::string& kind, const std::string& repo_root) {
    EngineConfig c;
    c.kind = kind;
    c.repo_root = repo_root;
    c.data_root = "/opmatrix-data";
    c.work_dir = work_dir;
    return c;
  }

  static void append(const std::string& path, const std::string& text) {
    if (path.empty()) return;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::app | std::ios::binary) << text;
  }

  // A path inside the cell (under paths(cell).build) as the host sees it.
  std::string host_path(const Cell& cell, const std::string& in_cell) const {
    const std::string build = paths(cell).build;
    if (in_cell.rfind(build, 0) != 0)
      throw std::runtime_error("fake engine: " + in_cell + " is not under the cell's build folder " + build);
    return host_build_dir(cell) + in_cell.substr(build.size());
  }

  std::filesystem::path host_path_for(const Cell& cell, const StepCommand& cmd, const std::string& rel) const {
    static const std::string flag = "--gtest_output=json:";
    if (rel == "@gtest_output") {
      for (const auto& a : cmd.argv)
        if (a.rfind(flag, 0) == 0) return host_path(cell, a.substr(flag.size()));
      throw std::runtime_error("fake engine: the " + cmd.step + " command has no " + flag + " argument");
    }
    if (rel.rfind("@GTEST_OUTPUT/", 0) == 0) {
      for (const auto& [k, v] : cmd.env)
        if (k == "GTEST_OUTPUT" && v.rfind("json:", 0) == 0)
          return std::filesystem::path(host_path(cell, v.substr(5))) / rel.substr(14);
      throw std::runtime_error("fake engine: the " + cmd.step + " command has no GTEST_OUTPUT=json:DIR/");
    }
    return std::filesystem::path(host_build_dir(cell)) / rel;
  }

  // The most specific script: one keyed on the argv first, then the step alone.
  Script* find(const StepCommand& cmd) {
    Script* plain = nullptr;
    for (auto& s : scripts_) {
      if (s.step != cmd.step || s.sequence.empty()) continue;
      if (s.argv_contains.empty()) {
        if (!plain) plain = &s;
        continue;
      }
      for (const auto& a : cmd.argv)
        if (a.find(s.argv_contains) != std::string::npos) return &s;
    }
    return plain;
  }

  std::vector<Script> scripts_;
  std::vector<std::string> unscripted_;
};

}  // namespace opmatrix::fake
