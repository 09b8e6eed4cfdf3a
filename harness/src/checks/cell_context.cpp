#include "checks/cell_context.h"

#include <cstdlib>
#include <regex>

#include <fmt/format.h>

#include "diagnose/diagnose.h"
#include "run/log_ticker.h"
#include "util/atomic_write.h"
#include "util/cuda_arch.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

// What a step's `when` asks of the cell, given what the steps before it left.
bool applies(const CellContext& ctx, StepWhen when) {
  const bool built = ctx.build.built;
  switch (when) {
    case StepWhen::every_cell: return true;
    case StepWhen::cuda_cell: return ctx.cell.has_cuda();
    case StepWhen::built: return built;
    case StepWhen::built_cuda: return built && ctx.cell.has_cuda() && !ctx.build.libraries.empty();
    case StepWhen::own_kernels: return built && !ctx.cell.project;
    case StepWhen::project_smoke: return built && ctx.cell.project && !ctx.cell.project->smoke.empty();
    case StepWhen::project_tests: return built && ctx.cell.project && !ctx.cell.project->tests.empty();
    case StepWhen::project: return ctx.cell.project.has_value();
    case StepWhen::pypi_project: return ctx.cell.project && ctx.cell.project->from_pypi();
    case StepWhen::atlas_pair: return ctx.cell.atlas_pair;
  }
  return false;
}

}  // namespace

bool step_runs(const CellContext& ctx, const StepSpec& spec) {
  return applies(ctx, spec.when) && (!ctx.cell.atlas_pair || spec.in_atlas);
}

Status status_of_process(const ProcessResult& r) {
  if (r.timed_out) return Status::timeout;
  if (r.interrupted) return Status::error;
  if (r.signal != 0) return Status::crash;
  return r.ok() ? Status::pass : Status::fail;
}

CellContext::CellContext(const Matrix& m, const Cell& c, Engine& e, const RunSettings& s, const Progress& p)
    : matrix(m), cell(c), engine(e), settings(s), progress(p), paths(e.paths(c)) {}

void CellContext::say(const std::string& line) const {
  if (progress) progress(cell.id, line);
}

std::string CellContext::log_path(const std::string& step) const {
  return step_log_path(settings.results_dir, cell.id, step);
}

StepCommand CellContext::command(const std::string& step, std::vector<std::string> argv, double timeout) const {
  StepCommand c;
  c.cell_id = cell.id;
  c.step = step;
  c.argv = std::move(argv);
  c.log_path = log_path(step);
  c.timeout_s = timeout;
  c.env = {{"CCACHE_DIR", paths.ccache}, {"OPMATRIX_EXPECT_CUDA", cell.has_cuda() ? "1" : "0"}};
  // What the probe read of the cell's torch, for the scripts that need no more of it: they are
  // spared importing torch again (2-3 s a step).
  const std::string torch_version = json_text(result.versions, "torch");
  if (!torch_version.empty()) c.env.emplace_back("OPMATRIX_TORCH_VERSION", torch_version);
  if (const auto abi = result.versions.find("cxx11_abi"); abi != result.versions.end() && abi->is_boolean())
    c.env.emplace_back("OPMATRIX_TORCH_CXX11_ABI", abi->get<bool>() ? "1" : "0");
  return c;
}

StepCommand CellContext::script_command(const std::string& step, const std::string& script,
                                        std::vector<std::string> args, const EnvList& env) const {
  std::vector<std::string> argv = {paths.scripts + "/python.sh", paths.scripts + "/" + script};
  argv.insert(argv.end(), args.begin(), args.end());
  StepCommand cmd = command(step, argv, timeout_of(step));
  cmd.env.insert(cmd.env.end(), env.begin(), env.end());
  return cmd;
}

void CellContext::add_error(const std::string& check, const std::string& message, double seconds) {
  add({"", check, "", Status::error, message, "", seconds, {}, std::nullopt});
}

ProcessResult CellContext::run_step(const StepCommand& cmd, const std::string& check,
                                    const std::function<bool(const ProcessResult&)>& output_is_data) {
  say(fmt::format("{} ...", cmd.step));
  ProcessResult r;
  if (const auto shared = ran_shared.find(cmd.step); shared != ran_shared.end()) {
    r = shared->second.process;
    write_file_atomically(cmd.log_path, shared->second.log);
    ran_shared.erase(shared);
  } else {
    // A step that runs long says every 10 s what it is doing (a compile's N of M, the test).
    LogTicker ticker(cmd.log_path, kStepProgressSeconds, [&](const std::string& line) { say(cmd.step + ": " + line); },
                     LogTicker::ReadFrom::end, step_reader());
    r = engine.run_step(image, cell, cmd);
  }
  StepResult s;
  s.name = cmd.step;
  s.status = r.started ? status_of_process(r) : Status::error;
  if (s.status == Status::fail && output_is_data && output_is_data(r)) s.status = Status::pass;
  s.seconds = r.seconds;
  s.exit_code = r.exit_code;
  s.signal = r.signal;
  s.log = log_rel(cmd.step);
  s.command = display(cmd);
  result.steps.push_back(s);
  say(fmt::format("{} {} ({:.1f} s)", cmd.step, to_string(s.status), r.seconds));
  if (r.ok() || check.empty()) return r;
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
  add(c);
  return r;
}

ProcessResult CellContext::run_script_step(const StepSpec& spec, const std::string& check) {
  StepCommand cmd = script_command(spec.name, spec.script, {});
  cmd.capture_stdout = true;
  return run_step(cmd, check);
}

ProcessResult CellContext::run_pypi_script(const StepSpec& spec, std::vector<std::string> args, std::string& repro) {
  StepCommand cmd = script_command(spec.name, spec.script, std::move(args));
  cmd.network = true;
  cmd.capture_stdout = true;
  if (const char* index = std::getenv("OPMATRIX_PYPI_URL"); index && *index) {
    cmd.env.emplace_back("OPMATRIX_PYPI_URL", index);                       // fetch_pypi.py's JSON API
    cmd.env.emplace_back("PIP_INDEX_URL", std::string(index) + "/simple");  // pip's
    // pip ignores an index over plain HTTP unless its host is trusted: the one named is.
    static const std::regex http_host(R"(^http://([^/:]+))");
    std::cmatch m;
    if (std::regex_search(index, m, http_host)) cmd.env.emplace_back("PIP_TRUSTED_HOST", m[1].str());
  }
  repro = display(cmd);
  ProcessResult r = run_step(cmd, "", [](const ProcessResult& pr) { return pr.exit_code == 1; });
  // What a run with an empty cache downloads here, as the script counted it (the dry run of a
  // later run adds it to the images' downloads).
  const nlohmann::json answer = last_json_line(r.stdout_text);
  if (answer.is_object() && answer.contains("download_bytes") && answer["download_bytes"].is_number())
    result.steps.back().download_bytes = answer["download_bytes"].get<double>();
  return r;
}

nlohmann::json CellContext::script_json(const std::string& step, const std::string& script,
                                        std::vector<std::string> args, const std::string& check, std::string* repro,
                                        const EnvList& env) {
  StepCommand cmd = script_command(step, script, std::move(args), env);
  cmd.capture_stdout = true;
  if (repro) *repro = display(cmd);
  ProcessResult r = run_step(cmd, check);
  if (!r.ok()) return nlohmann::json();
  nlohmann::json j = nlohmann::json::parse(r.stdout_text, nullptr, false);
  if (!j.is_object()) {
    add_error(check, step + ": the script printed no JSON", r.seconds);
    return nlohmann::json();
  }
  return j;
}

std::string CellContext::project_dir_in_cell() const {
  const Project& p = *cell.project;
  if (!p.pypi.empty()) return paths.build + "/src";
  if (!p.wheel.empty()) return paths.build;
  return paths.src + "/" + p.path;
}

std::string CellContext::project_dir_on_host() const {
  const Project& p = *cell.project;
  if (!p.pypi.empty()) return engine.host_build_dir(cell) + "/src";
  if (!p.wheel.empty()) return engine.host_build_dir(cell);
  return engine.config().repo_root + "/" + p.path;
}

std::string CellContext::project_output() const {
  return cell.project && cell.project->kind != "cmake" ? paths.build + "/site" : paths.build;
}

EnvList CellContext::wheel_build_env() const {
  // A setup.py that runs pip itself (MinkowskiEngine 0.5.4: `pip uninstall MinkowskiEngine -y`)
  // meets PEP 668 in Debian's system Python, where the cell builds; a user of Debian's torch installs
  // into it with a venv that sees its packages, or with --break-system-packages, and neither refuses.
  EnvList env = {{"MAX_JOBS", std::to_string(settings.build_jobs)},
                 {"FORCE_CUDA", cell.has_cuda() ? "1" : "0"},
                 {"PIP_BREAK_SYSTEM_PACKAGES", "1"}};
  if (cell.has_cuda()) env.emplace_back("TORCH_CUDA_ARCH_LIST", torch_arch_list(build.archs));
  return env;
}

EnvList CellContext::project_env() const {
  if (!cell.project) return {{"PYTHONPATH", paths.build + "/kernels"}};
  // The project's own requirements (checks/requirements) come after the project itself; the
  // shared libraries pip puts in an environment's lib folder (tbb's libtbb.so.12, which fairseq2n
  // loads by name or from there) are found by name, as from <venv>/lib.
  const std::string deps = paths.build + "/deps";
  // On the host engine the machine's own LD_LIBRARY_PATH (a CUDA toolkit's) stays after it.
  const char* host_paths = engine.name() == "host" ? std::getenv("LD_LIBRARY_PATH") : nullptr;
  const std::pair<std::string, std::string> data_libraries{
      "LD_LIBRARY_PATH", paths.build + "/deps-data/lib" + (host_paths && *host_paths ? std::string(":") + host_paths : "")};
  if (cell.project->kind == "cmake") return {{"PYTHONPATH", deps}, data_libraries};
  return {{"PYTHONPATH", project_output() + ":" + deps}, data_libraries};
}

std::string CellContext::import_module() const {
  return cell.project ? cell.project->import_module : std::string("opmatrix_ops");
}

std::string CellContext::samples_in_cell() const {
  if (!cell.project) return paths.src + "/cases/samples.py";
  return cell.project->samples.empty() ? "" : paths.src + "/" + cell.project->samples;
}

StepCommand CellContext::against_installed(const std::string& step, const std::vector<std::string>& argv,
                                           const std::string& junit) const {
  const Project& p = *cell.project;
  std::vector<std::string> args = {"--source", p.wheel.empty() ? project_dir_in_cell() : "", "--tree",
                                   paths.build + "/run-tree", "--site", p.kind == "cmake" ? "" : project_output()};
  if (!junit.empty()) args.insert(args.end(), {"--junit", junit});
  args.push_back("--");
  args.insert(args.end(), argv.begin(), argv.end());
  StepCommand cmd = script_command(step, "run_tests.py", args);
  cmd.env.emplace_back("OPMATRIX_PROJECT_BUILD", project_output());
  for (auto& kv : project_env()) cmd.env.push_back(kv);
  return cmd;
}

}  // namespace opmatrix
