#include "run/cell_runner.h"

#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "checks/cell_context.h"
#include "checks/registry.h"
#include "matrix/to_json.h"
#include "util/clock.h"
#include "version.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// The last run's logs go; an image log the look-ahead wrote in this run stays.
void clear_log_folder(const CellContext& ctx) {
  const std::string dir = ctx.settings.results_dir + "/logs/" + ctx.cell.id;
  if (!ctx.settings.image_log_from_look_ahead) {
    fs::remove_all(dir);
  } else {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path() != fs::path(ctx.log_path("image"))) fs::remove_all(entry.path(), ec);
  }
  fs::create_directories(dir);
}

// An atlas pair's folder holds its wheel installed with its requirements (100 MB to 1.3 GB a
// pair): once its steps are done nothing reads it again (its result is what stays), and 3,000
// pairs would fill any disk.
void remove_pair_folder(const CellContext& ctx) {
  std::error_code ec;
  fs::remove_all(ctx.engine.host_build_dir(ctx.cell), ec);
  if (ec) ctx.say(fmt::format("could not remove the pair's folder {}: {}", ctx.engine.host_build_dir(ctx.cell), ec.message()));
}

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

// The registry's sequence (checks/registry.h): each step runs where its `when` holds; a
// failed `ends_cell` step (image, probe) ends the cell. Then the rules over its results
// (checks/registry.h, CellRule), then the cell's expectations.
CellResult run_cell(const Matrix& matrix, const Cell& cell, Engine& engine, const RunSettings& settings,
                    const Progress& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  CellContext ctx(matrix, cell, engine, settings, progress);
  ctx.result.harness_version = kOpmatrixVersion;
  ctx.result.cell = cell_to_json(cell);
  ctx.result.engine = engine.name();
  ctx.result.started_at = now_iso8601();
  clear_log_folder(ctx);
  fs::create_directories(engine.host_build_dir(cell));
  fs::create_directories(engine.host_ccache_dir());
  fs::create_directories(engine.host_downloads_dir());
  for (const StepSpec& spec : step_registry()) {
    if (!step_runs(ctx, spec)) continue;
    if (!spec.run(ctx, spec) && spec.ends_cell) break;
  }
  for (const CellRule& rule : cell_rule_registry()) rule.apply(ctx);
  apply_expectations(cell, ctx.result);
  if (cell.atlas_pair) remove_pair_folder(ctx);
  ctx.result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return ctx.result;
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
    const bool torchvision_op = is_torchvision_op(c.op);
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
  settle_status(result);
}

}  // namespace opmatrix
