#include "checks/script/script_step.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstdlib>

#include "checks/cell_context.h"
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

// The script reports its own results about the libraries the build made. False: one is bad.
bool run_script_check(CellContext& ctx, const StepSpec& spec) {
  const CheckSpec* check = nullptr;
  for (const auto& sc : script_check_registry())
    if (sc.step.name == spec.name) check = &sc.check;
  if (!check) {  // a step registered without its check: a harness bug, said where it shows
    ctx.add_error("build", "the harness has no runner for step " + spec.name);
    return false;
  }
  std::string repro;
  nlohmann::json j = ctx.script_json(spec.name, spec.script, ctx.build.libraries, check->name, &repro, script_env(ctx));
  if (!j.is_object()) return false;
  bool ok = true;
  for (auto& c : script_checks(j, check->name, repro)) {
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
