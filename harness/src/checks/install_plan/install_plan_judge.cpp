#include "checks/install_plan/install_plan_judge.h"

#include <fmt/format.h>

#include "checks/requirements/index_elsewhere.h"
#include "checks/script_failure.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

// "torch 2.5.1 -> 2.8.0, triton (not installed) -> 3.1.0 and 14 NVIDIA packages": the NVIDIA
// wheels a torch brings are counted, not listed (a CUDA 13 torch brings 15 of them).
std::string replacements(const nlohmann::json& family) {
  std::string out;
  int nvidia = 0;
  for (const auto& f : family) {
    const std::string name = json_text(f, "name");
    if (name.rfind("nvidia-", 0) == 0) {
      ++nvidia;
      continue;
    }
    const std::string from = f.contains("from") && f["from"].is_string() ? f["from"].get<std::string>() : "";
    out += fmt::format("{}{} {} -> {}", out.empty() ? "" : ", ", name, from.empty() ? "(not installed)" : from,
                       json_text(f, "to"));
  }
  if (nvidia > 0) out += fmt::format("{}{} NVIDIA package{}", out.empty() ? "" : " and ", nvidia, nvidia == 1 ? "" : "s");
  return out;
}

std::string fix_for(const std::string& kind, const nlohmann::json& report) {
  if (kind == "network") return "check the connection to PyPI (or --extra-ca behind a re-signing proxy) and run again";
  if (kind == kIndexElsewhere) return index_elsewhere_fix(report);
  if (kind == "no_wheel")
    return "nothing to fix in this runtime: the release ships no wheel for its Python or platform (users here get "
           "the same 'No matching distribution')";
  if (kind == "requirement_no_wheel")
    return "nothing to fix in this runtime: a requirement the release names has no wheel for its Python or "
           "platform (users here get the same 'No matching distribution'); use a release whose requirements have "
           "wheels here";
  if (kind == "requirement_local_version") {
    // torch-rbln 0.12.0's torch==2.13.0+cpu: a local version, which PyPI never serves.
    const std::string index = json_text(report, "index");
    return index.empty()
               ? "install it from its publisher's index, or with `pip install --no-deps` beside the release it pins"
               : fmt::format("install it with `--extra-index-url {}` (pip then puts that build in place of this "
                             "runtime's), or with `pip install --no-deps` beside a torch of the same release",
                             index);
  }
  if (kind == "requirement_not_on_index")
    return "nothing to fix in this runtime: the release requires a project no index holds, so pip install fails on "
           "every Python and platform; its maintainers must correct that requirement (Python's own version goes in "
           "Requires-Python)";
  return "run the reproduction command: pip's own words say which requirement cannot be met";
}

}  // namespace

CheckResult install_plan_check(const nlohmann::json& report, const InstallPlanContext& ctx) {
  CheckResult c;
  c.check = "install-plan";
  c.seconds = ctx.seconds;
  const std::string from_cache = report.is_object() && report.value("cached", false) ? " (answer cached)" : "";
  // Which pip answered (scripts/cell/install_plan.py: a newer one reading METADATA alone, or the
  // runtime's own where that one refused): said with every answer, so a reader can ask it again.
  const std::string resolver = report.is_object() ? json_text(report, "resolver") : "";
  const std::string by = resolver.empty() ? "" : fmt::format("; resolved by {}", resolver);
  // Torch required only under an extra (deepmd-kit[torch]): the plan is that extra's, as the
  // library's torch side's users install it.
  const std::string extra = report.is_object() ? json_text(report, "torch_extra") : "";
  const std::string with_extra =
      extra.empty() ? "" : fmt::format(" (its [{}] extra: the only place its metadata requires torch)", extra);
  if (report.is_object() && report.value("ok", false)) {
    const auto family = report.value("torch_family", nlohmann::json::array());
    if (family.empty()) {
      c.status = Status::pass;
      c.message = fmt::format("pip install {}{} installs it next to this torch as it is ({} package{}){}{}",
                              json_text(report, "requirement"), with_extra,
                              report.value("install", nlohmann::json::array()).size(),
                              report.value("install", nlohmann::json::array()).size() == 1 ? "" : "s", from_cache, by);
      return c;
    }
    c.status = Status::fail;
    c.message = fmt::format("pip install {}{} would replace this runtime's {}: it works here only installed with "
                            "--no-deps{}{}",
                            json_text(report, "requirement"), with_extra, replacements(family), from_cache, by);
    c.diagnosis = Diagnosis{"replaces_torch", c.message,
                            "install it with `pip install --no-deps`, or use the torch its requirements name",
                            ctx.repro, ""};
    return c;
  }
  Diagnosis d = script_failure(report, ctx, ctx.timed_out, ctx.exit_code,
                               {"install_plan.py", "network", "pip's dry run ran past its time limit", "internal"});
  c.status = pip_infrastructure(d.kind) ? Status::error : Status::fail;
  d.fix = fix_for(d.kind, report.is_object() ? report : nlohmann::json::object());
  c.message = d.summary;
  c.diagnosis = d;
  return c;
}

}  // namespace opmatrix
