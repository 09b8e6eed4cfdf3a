// The `requirements` check: a project's own requirements (its metadata's, and its tests'), as a
// user's pip install brings them, less the torch family the cell is there to judge. Resolved
// and downloaded in the run's networked step, installed offline into /build/deps, which every
// later step has on PYTHONPATH after the project (scripts/cell/requirements.py).

#include "checks/cell_context.h"
#include "checks/registry.h"
#include "checks/requirements/index_elsewhere.h"
#include "checks/requirements/requirements_judge.h"
#include "util/atomic_write.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

// What requirements.py resolves from: the fetched wheel or sdist, else the project's folder.
std::vector<std::string> resolve_args(const CellContext& ctx) {
  const Project& p = *ctx.cell.project;
  const std::string kind = !p.wheel.empty() ? "wheel" : !p.pypi.empty() ? "sdist" : p.kind;
  std::vector<std::string> args = {"resolve", "--kind", kind, "--source",
                                   p.from_pypi() ? ctx.build.fetched : ctx.project_dir_in_cell(),
                                   "--build", ctx.paths.build, "--cache", ctx.paths.downloads + "/requirements"};
  if (!p.tests.empty()) args.push_back("--tests");
  for (const auto& r : p.requires_also) args.insert(args.end(), {"--require", r});
  if (!p.tests.empty())
    for (const auto& r : p.test_requires) args.insert(args.end(), {"--require", r});
  return args;
}

// Whether the resolve step left something to install (else the check is judged at once).
bool installs_something(const nlohmann::json& resolved) {
  return resolved.is_object() && resolved.value("ok", false) &&
         !resolved.value("install", nlohmann::json::array()).empty();
}

bool resolve(CellContext& ctx, const StepSpec& spec) {
  std::string repro;
  ProcessResult r = ctx.run_pypi_script(spec, resolve_args(ctx), repro);
  nlohmann::json j = last_json_line(r.stdout_text);
  ctx.notes["requirements"] = {{"resolved", j}, {"repro", repro}, {"seconds", r.seconds}};
  // Without anything to install, the judgement is made now; else after the install step.
  if (!installs_something(j))
    ctx.add(requirements_check(j, nullptr, {ctx.cell.project->label(), repro, read_text_file(ctx.log_path(spec.name)), r.seconds}));
  return true;
}

bool install(CellContext& ctx, const StepSpec& spec) {
  const nlohmann::json& note = ctx.notes.value("requirements", nlohmann::json::object());
  const nlohmann::json resolved = note.value("resolved", nlohmann::json());
  if (!installs_something(resolved)) return true;
  StepCommand cmd = ctx.script_command(spec.name, spec.script,
                                       {"install", "--resolved", json_text(resolved, "resolved"), "--build", ctx.paths.build});
  cmd.capture_stdout = true;
  // An sdist among them (torch-scatter beside torch-sparse) is built as the project is.
  for (auto& kv : ctx.wheel_build_env()) cmd.env.push_back(kv);
  ProcessResult r = ctx.run_step(cmd, "", [](const ProcessResult& pr) { return pr.exit_code == 1; });
  nlohmann::json j = last_json_line(r.stdout_text);
  if (!j.is_object()) j = {{"ok", false}, {"error", "internal"}, {"message", "requirements.py install printed no result"}};
  ctx.add(requirements_check(resolved, j, {ctx.cell.project->label(), json_text(note, "repro"),
                                           read_text_file(ctx.log_path(spec.name)),
                                           note.value("seconds", 0.0) + r.seconds}));
  return true;
}

const bool kRegistered =
    (register_step(35, atlas_step({"requirements", "requirements.py", "", 900, StepWhen::project,
                        "resolves the project's own requirements (and its tests') for the cell's Python, its torch "
                        "family pinned, and downloads them (network)",
                        false, resolve})),
     // An sdist among them (a prerequisite like torch-scatter) is compiled here, against the cell's
     // torch: after the archs step, so that a CUDA cell builds it for the archs its nvcc can target.
     register_step(65, atlas_step({"requirements-install", "requirements.py", "", 3600, StepWhen::project,
                        "installs what the requirements step fetched into /build/deps, offline (building an "
                        "sdist among them against the cell's torch)",
                        false, install})),
     register_check(25, {"requirements", {"requirements", "requirements-install"}, "requirements_check", CheckPer::cell,
                         "the project's own requirements (its Requires-Dist, its tests') install in the cell as a "
                         "user's pip install brings them, without replacing the cell's torch",
                         "ModuleNotFoundError: No module named 'scipy'",
                         {"network", "internal", kIndexElsewhere}, true}),
     true);

}  // namespace

}  // namespace opmatrix
