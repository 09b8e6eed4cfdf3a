// The image step: builds (or finds, by content hash) the cell's image. It has no check of its
// own: an image that cannot be had is the cell's `build` failure, diagnosed as the image's.
#include <filesystem>

#include <fmt/format.h>

#include "checks/cell_context.h"
#include "checks/registry.h"
#include "diagnose/diagnose.h"
#include "run/log_ticker.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// A build tree made in another image (other compiler, other torch) would mislead CMake and
// ninja: start it afresh when the image changed. Same image: incremental build.
void keep_build_tree_only_for(const CellContext& ctx, const std::string& image) {
  const std::string dir = ctx.engine.host_build_dir(ctx.cell);
  const std::string stamp = dir + "/.opmatrix-image";
  if (fs::exists(stamp) && read_text_file(stamp) == image) return;
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  write_file_atomically(stamp, image);
}

ImageOutcome ensure_image(CellContext& ctx) {
  // A cold build takes minutes: what it is doing, every 10 s (nothing for a present image).
  // A build the look-ahead began is read from its first line (its step so far), and the
  // time in the line is this cell's wait for it.
  const bool ahead = ctx.settings.image_log_from_look_ahead;
  LogTicker ticker(ctx.log_path("image"), kStepProgressSeconds,
                   [&](const std::string& line) {
                     ctx.say((ahead ? "image: waiting for the look-ahead build: " : "image: ") + line);
                   },
                   ahead ? LogTicker::ReadFrom::start : LogTicker::ReadFrom::end);
  return ctx.engine.ensure_image(ctx.cell, ctx.log_path("image"), ctx.timeout_of("image"));
}

// The step as the results record it. Acquired by someone else (the look-ahead, or a cell of
// the same image): the step keeps the build's own seconds, and says how long this cell really
// stood still for it (`how`, for the console line).
StepResult image_step_result(const CellContext& ctx, const ImageOutcome& img, std::string& how) {
  StepResult s;
  s.name = "image";
  s.status = img.ok ? Status::pass : (img.process.timed_out ? Status::timeout : Status::error);
  s.seconds = img.seconds;
  s.exit_code = img.process.exit_code;
  s.log = ctx.log_rel("image");
  s.command = img.built ? "build " + img.tag : "present " + img.tag;
  if (!img.acquired_by.empty()) {
    s.waited_seconds = img.waited_seconds;
    how = img.acquired_by == "the look-ahead" ? "by the look-ahead" : "built for " + img.acquired_by;
    s.command += fmt::format(" ({}; this cell waited {:.1f} s)", how, img.waited_seconds);
    how = fmt::format(", {}; waited {:.1f} s", how, img.waited_seconds);
  }
  return s;
}

void record_image_failure(CellContext& ctx, const ImageOutcome& img, Status status) {
  const std::string log = read_text_file(ctx.log_path("image"));
  const std::string repro = fmt::format("opmatrix run --cell {}", ctx.cell.id);
  // A full disk is the machine's state, not the image's fault: its own kind, which the
  // infrastructure owns (never kept as the cell's result: the next run builds again).
  Diagnosis d = diagnose_step({"image", log, img.process.exit_code, 0, img.process.timed_out, 0, repro});
  // So is an index this machine cannot reach (the cell's torch from download.pytorch.org).
  if (d.kind != "disk_full" && d.kind != "index_unreachable") {
    d = Diagnosis();
    d.kind = "image_error";
    d.summary = img.error;
    d.fix = "run the build command by hand and read its log; for pip downloads behind a re-signing proxy pass "
            "--extra-ca (docs/containers.md)";
    d.repro = repro;
    d.evidence = log.substr(0, 4000);
  }
  ctx.result.diagnoses.push_back(d);
  ctx.add({"", "build", "", status, img.error, "", img.seconds, {}, d});
}

bool image(CellContext& ctx, const StepSpec&) {
  ctx.say("image ...");
  const ImageOutcome img = ensure_image(ctx);
  ctx.image = img.tag;
  ctx.result.image = img.tag;
  keep_build_tree_only_for(ctx, img.tag);
  if (ctx.engine.name() == "host") return true;
  std::string how;
  const StepResult s = image_step_result(ctx, img, how);
  ctx.result.steps.push_back(s);
  ctx.say(fmt::format("image {} {} ({:.1f} s{})", img.built ? "built" : "present", img.ok ? img.tag : "FAILED",
                      img.seconds, how));
  if (img.ok) {
    ctx.result.image_id = ctx.engine.image_id(img.tag);
    return true;
  }
  record_image_failure(ctx, img, s.status);
  return false;
}

const bool kRegistered = (register_step(10, atlas_step({"image", "", "podman build / docker build of the cell's Containerfile", 3600,
                                             StepWhen::every_cell, "builds (or finds, by content hash) the cell's image",
                                             true, image})),
                          true);

}  // namespace

}  // namespace opmatrix
