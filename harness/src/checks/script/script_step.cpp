#include "checks/script/script_step.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "checks/cell_context.h"
#include "checks/load/load_judge.h"
#include "checks/script/script_declaration.h"
#include "checks/script/script_judge.h"
#include "script_check_declarations.h"

namespace opmatrix {

namespace {

// What every script check is told about the cell (script_judge.h).
EnvList script_env(const CellContext& ctx) {
  const Project* p = ctx.project();
  const std::vector<std::string>& ops = p ? p->ops : ctx.matrix.ops;
  EnvList env = {{"OPMATRIX_NAMESPACE", p ? p->ns : std::string("opmatrix")},
                 {"OPMATRIX_OPS", fmt::format("{}", fmt::join(ops, ","))},
                 {"OPMATRIX_CUDA_ARCHS", fmt::format("{}", fmt::join(ctx.cell.cuda_archs, ","))},
                 {"OPMATRIX_BUILD", ctx.paths.build},
                 {"OPMATRIX_BUILD_JOBS", std::to_string(ctx.settings.build_jobs)},
                 {"OPMATRIX_PROJECT_DIR", p ? ctx.project_dir_in_cell() : std::string()},
                 {"OPMATRIX_IMPORT", ctx.import_module()},
                 {"OPMATRIX_SAMPLES", ctx.samples_in_cell()}};
  for (auto& kv : ctx.project_env()) env.push_back(kv);
  return env;
}

StepCommand script_check_command(const CellContext& ctx, const StepSpec& spec) {
  return ctx.script_command(spec.name, spec.script, ctx.build.libraries, script_env(ctx));
}

// At the first step of the cell that shares a container (StepSpec::shares_container), runs it
// and every later one that runs in this cell in one container (scripts/cell/run_steps.py): each
// step then takes its own result in its turn (CellContext::ran_shared), its log and repro
// command its own as before. Where that container fails as a whole, each step runs alone.
void run_shared_steps(CellContext& ctx, const StepSpec& first) {
  if (!first.shares_container || ctx.shared_container_tried) return;
  ctx.shared_container_tried = true;
  std::vector<StepCommand> members;
  bool from_first = false;
  for (const auto& sc : script_check_registry()) {
    from_first = from_first || sc.step.name == first.name;
    if (from_first && sc.step.shares_container && step_runs(ctx, sc.step))
      members.push_back(script_check_command(ctx, sc.step));
  }
  if (members.size() < 2) return;
  nlohmann::json steps = nlohmann::json::array();
  double timeout = 60;  // the container's own start and stop
  for (const auto& m : members) {
    steps.push_back({{"step", m.step}, {"argv", m.argv}, {"timeout_s", m.timeout_s}});
    timeout += m.timeout_s;
  }
  StepCommand shared = ctx.script_command("shared-steps", "run_steps.py", {steps.dump()});
  shared.env = members.front().env;
  shared.timeout_s = timeout;
  shared.capture_stdout = true;
  std::vector<std::string> names;
  for (const auto& m : members) names.push_back(m.step);
  ctx.say(fmt::format("{}: in one container ...", fmt::join(names, ", ")));
  const ProcessResult r = ctx.engine.run_step(ctx.image, ctx.cell, shared);
  const nlohmann::json out = r.ok() ? nlohmann::json::parse(r.stdout_text, nullptr, false) : nlohmann::json();
  if (!out.is_object()) return;
  for (const auto& s : out.value("steps", nlohmann::json::array())) {
    ProcessResult p;
    p.started = true;
    p.exit_code = s.value("exit_code", -1);
    p.signal = s.value("signal", 0);
    p.timed_out = s.value("timed_out", false);
    p.seconds = s.value("seconds", 0.0);
    p.stdout_text = s.value("stdout", "");
    ctx.ran_shared[s.value("step", "")] = {p, s.value("log", "")};
  }
  // The container's start and stop, which the steps no longer pay one by one, go to the first.
  if (auto it = ctx.ran_shared.find(first.name); it != ctx.ran_shared.end()) {
    double steps_seconds = 0;
    for (const auto& [name, run] : ctx.ran_shared) steps_seconds += run.process.seconds;
    it->second.process.seconds += std::max(0.0, r.seconds - steps_seconds);
  }
}

// The script reports its own results about the libraries the build made. False: one is bad.
bool run_script_check(CellContext& ctx, const StepSpec& spec) {
  const CheckSpec* check = nullptr;
  for (const auto& sc : script_check_registry())
    if (sc.step.name == spec.name) check = &sc.check;
  if (!check) {  // a step registered without its check: a harness bug, said where it shows
    ctx.add_error("build", "the harness has no runner for step " + spec.name);
    return false;
  }
  run_shared_steps(ctx, spec);
  std::string repro;
  nlohmann::json j = ctx.script_json(spec.name, spec.script, ctx.build.libraries, check->name, &repro, script_env(ctx));
  if (!j.is_object()) return false;
  bool ok = true;
  for (auto& c : script_checks(j, check->name, repro, ctx.result.checks)) {
    if (check->per == CheckPer::library) c = library_done_without(std::move(c), ctx.result.checks);
    ok = ok && !is_bad(c.status);
    ctx.add(std::move(c));
  }
  return ok;
}

// Every declaration under checks/script/, carried in the binary. One that does not read is a
// defect of this build (a unit test reads them all): said with its file, line and column.
bool register_declared_script_checks() {
  for (const auto& text : kScriptCheckDeclarations) {
    Diagnostics diag(std::string("harness/src/checks/script/") + text.name);
    const auto d = parse_script_check(text.text, diag);
    for (const auto& item : diag.sorted()) std::fprintf(stderr, "%s\n", format_diagnostic(item).c_str());
    if (!d) std::abort();
    register_script_check(d->order, d->declared.step, d->declared.check);
  }
  return true;
}

const bool kRegistered = register_declared_script_checks();

}  // namespace

void register_script_check(double order, StepSpec step, CheckSpec check) {
  step.run = run_script_check;
  add_script_check(order, {std::move(step), std::move(check)});
}

}  // namespace opmatrix
