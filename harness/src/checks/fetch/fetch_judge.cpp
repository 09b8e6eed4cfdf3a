#include "checks/fetch/fetch_judge.h"

#include <fmt/format.h>

#include "checks/script_failure.h"
#include "util/json_fields.h"

namespace opmatrix {

std::string fetch_fix(const std::string& kind, const std::string& downloads_dir) {
  if (kind == "network") return "check the connection to PyPI (or --extra-ca behind a re-signing proxy) and run again";
  if (kind == "no_compatible_wheel")
    return "pick a release that ships a wheel for this cell's Python and platform, or another cell; users of this "
           "cell get the same 'no matching distribution'";
  if (kind == "no_sdist") return "use `wheel:` for a release that ships wheels only";
  if (kind == "no_such_project" || kind == "no_such_version" || kind == "bad_requirement")
    return "fix the project's NAME==VERSION in the matrix";
  if (kind == "hash_mismatch")
    return "the file is not the one PyPI lists (a proxy that rewrites downloads shows up so): remove " + downloads_dir +
           " and run again";
  if (kind == "cache") return "the downloads folder " + downloads_dir + " cannot be written: check its owner and free space";
  if (kind == "image_missing_prerequisite") return "the cell's image has neither pip nor packaging: use a built-in image";
  return "run the reproduction command and read fetch_pypi.py's message in the log";
}

CheckResult fetch_check(const nlohmann::json& report, const FetchContext& ctx) {
  CheckResult c;
  c.check = "fetch";
  c.seconds = ctx.seconds;
  if (report.is_object() && report.value("ok", false)) {
    c.status = Status::pass;
    c.message = fmt::format("{}: {}, {} bytes, sha256 {} as PyPI lists it{} ({})", ctx.project,
                            json_text(report, "filename"), report.value("size", 0), json_text(report, "sha256"),
                            report.value("cached", false) ? ", from the downloads cache" : "", json_text(report, "url"));
    return c;
  }
  Diagnosis d = script_failure(report, ctx, ctx.timed_out, ctx.exit_code,
                               {"fetch_pypi.py", "network", "the download from PyPI ran past its time limit", "fetch_error"});
  // A network failure says nothing about the library: it is the run's (the registry lists
  // the fetch kinds whose results are never reused).
  c.status = d.kind == "network" ? Status::error : Status::fail;
  d.fix = fetch_fix(d.kind, ctx.downloads_dir);
  c.message = d.summary;
  c.diagnosis = d;
  return c;
}

}  // namespace opmatrix
