// The `fetch` check: a pypi:/wheel: project's file, from PyPI into the shared downloads folder
// (one of the run's steps with network, with requirements and an atlas pair's install-plan), chosen by the cell's own Python
// as pip would, its sha256 checked against PyPI's (fetch_judge.cpp).
#include "checks/cell_context.h"
#include "checks/fetch/fetch_judge.h"
#include "checks/registry.h"
#include "util/atomic_write.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

bool fetch(CellContext& ctx, const StepSpec& spec) {
  const Project& p = *ctx.cell.project;
  std::string repro;
  ProcessResult r = ctx.run_pypi_script(spec, {"--kind", p.wheel.empty() ? "sdist" : "wheel", "--requirement",
                                               p.wheel.empty() ? p.pypi : p.wheel, "--cache", ctx.paths.downloads},
                                        repro);
  nlohmann::json j = nlohmann::json::parse(r.stdout_text, nullptr, false);
  const CheckResult c = fetch_check(j, {{p.label(), repro, read_text_file(ctx.log_path("fetch")), r.seconds},
                                        ctx.engine.host_downloads_dir(), r.timed_out, r.exit_code});
  if (c.status == Status::pass) ctx.build.fetched = json_text(j, "path");
  ctx.add(c);
  return c.status == Status::pass && !ctx.build.fetched.empty();
}

const bool kRegistered =
    (register_step(30, atlas_step({"fetch", "fetch_pypi.py", "", 600, StepWhen::pypi_project,
                        "downloads a pypi:/wheel: project's file from PyPI (with network, as requirements and install-plan have; cached "
                        "by sha256)",
                        true, fetch})),
     register_check(20, {"fetch", {"fetch"}, "fetch_check", CheckPer::cell,
                         "a pypi:/wheel: project's release exists on PyPI with a file for the cell (an sdist; a wheel "
                         "this Python and platform accept), its sha256 the one PyPI lists",
                         "ERROR: Could not find a version that satisfies the requirement fbgemm-gpu-cpu==1.0.0",
                         {"network", "hash_mismatch", "cache", "fetch_error", "internal", "image_missing_prerequisite"},
                         true}),
     true);

}  // namespace

}  // namespace opmatrix
