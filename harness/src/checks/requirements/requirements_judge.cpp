#include "checks/requirements/requirements_judge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/requirements/index_elsewhere.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

std::string fix_for(const std::string& kind, const nlohmann::json& report) {
  if (kind == "network") return "check the connection to PyPI (or --extra-ca behind a re-signing proxy) and run again";
  if (kind == kIndexElsewhere) return index_elsewhere_fix(report);
  if (kind == "unresolvable")
    return fmt::format("users of this cell get the same refusal from pip install: require a release of it that "
                       "exists for Python {} (or a marker that leaves it out there) in the project's metadata",
                       json_text(report, "python"));
  if (kind == "metadata") return "fix the project's setup.py or build backend; the build step runs the same code";
  if (kind == "install_failed") return "read pip's error in the log: the files were fetched but do not install here";
  return "run the reproduction command and read requirements.py's message in the log";
}

std::string installed_list(const nlohmann::json& resolved) {
  std::vector<std::string> names;
  for (const auto& i : resolved.value("install", nlohmann::json::array()))
    names.push_back(fmt::format("{} {}", json_text(i, "name"), json_text(i, "version")));
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

CheckResult requirements_check(const nlohmann::json& resolved, const nlohmann::json& installed,
                               const RequirementsContext& ctx) {
  CheckResult c;
  c.check = "requirements";
  c.seconds = ctx.seconds;
  const nlohmann::json& failed = resolved.is_object() && !resolved.value("ok", false) ? resolved : installed;
  if (resolved.is_object() && resolved.value("ok", false) && (installed.is_null() || installed.value("ok", false))) {
    const auto wanted = resolved.value("requirements", nlohmann::json::array());
    const auto install = resolved.value("install", nlohmann::json::array());
    c.status = Status::pass;
    if (wanted.empty())
      c.message = fmt::format("{} requires nothing besides torch", ctx.project);
    else if (install.empty())
      c.message = fmt::format("{}: {} already in the cell", ctx.project,
                              fmt::join(wanted.get<std::vector<std::string>>(), ", "));
    else
      c.message = fmt::format("{}: installed {} (for {}){}", ctx.project, installed_list(resolved),
                              fmt::join(wanted.get<std::vector<std::string>>(), ", "),
                              resolved.value("cached", false) ? ", from the downloads cache" : "");
    // What its pyproject's [build-system] asked for and the cell lacked (a user's isolated build
    // would have had it): fetched for the build, said once here.
    // Torch required only under an extra (deepmd-kit's [torch]): that extra's requirements are its
    // torch side's, as its users install it.
    if (const std::string extra = json_text(resolved, "torch_extra"); !extra.empty())
      c.message += fmt::format("; with its [{}] extra, the only place its metadata requires torch, as its torch "
                               "side's users install it",
                               extra);
    const auto backend = resolved.value("build_requires", nlohmann::json::array());
    if (backend.is_array() && !backend.empty())
      c.message += fmt::format("; for its build: {} (its [build-system] requires, which the cell lacked)",
                               fmt::join(backend.get<std::vector<std::string>>(), ", "));
    return c;
  }
  Diagnosis d;
  d.kind = failed.is_object() ? json_text(failed, "error") : "";
  d.summary = failed.is_object() ? json_text(failed, "message") : "";
  if (d.kind.empty()) d.kind = "internal";
  if (d.summary.empty()) d.summary = "requirements.py printed no result (see the log)";
  c.status = pip_infrastructure(d.kind) ? Status::error : Status::fail;
  d.fix = fix_for(d.kind, failed.is_object() ? failed : nlohmann::json::object());
  d.repro = ctx.repro;
  d.evidence = ctx.log.size() > 2000 ? ctx.log.substr(ctx.log.size() - 2000) : ctx.log;
  c.message = d.summary;
  c.diagnosis = d;
  return c;
}

}  // namespace opmatrix
