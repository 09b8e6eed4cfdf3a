// The test step of opmatrix's own kernels: ctest runs the case binaries of cases/ (one
// process each); their gtest JSON gives one result per op and check (`correctness`,
// `gradient`, `device`, and the cases' `registration` and `meta`), the worst test deciding and
// its failure explaining. `test` says when no case binary ran at all.
#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "checks/cell_context.h"
#include "checks/registry.h"
#include "diagnose/diagnose.h"
#include "results/test_outcomes.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// No test results: none started, or the test step died first.
void record_no_results(CellContext& ctx, const StepCommand& cmd, const ProcessResult& r) {
  CheckResult c;
  c.check = "test";
  c.status = r.timed_out ? Status::timeout : r.signal != 0 ? Status::crash : Status::error;
  c.message = "no test results: no case binary ran (see the test log)";
  StepFailure f{"test", read_text_file(cmd.log_path), r.exit_code, r.signal, r.timed_out, cmd.timeout_s, ctx.display(cmd)};
  c.diagnosis = diagnose_step(f);
  c.message += ": " + c.diagnosis->summary;
  ctx.add(c);
}

// The failing test's diagnosis, with the command that reruns just that test.
Diagnosis diagnose_failed_test(const CellContext& ctx, const TestOutcome& t) {
  std::vector<std::string> repro = {ctx.paths.build + "/" + t.binary};
  if (t.name.find('.') != std::string::npos && t.name.find(' ') == std::string::npos)
    repro.push_back("--gtest_filter=" + t.name);
  StepCommand one = ctx.command("test", repro, 0);
  one.env.clear();
  one.env.emplace_back("OPMATRIX_EXPECT_CUDA", ctx.cell.has_cuda() ? "1" : "0");
  return diagnose_test(t, ctx.display(one));
}

// One check result per op x check; the worst test decides, its failure explains.
CheckResult group_result(const CellContext& ctx, const std::string& op, const std::string& check,
                         const std::vector<const TestOutcome*>& tests) {
  CheckResult c;
  c.op = op;
  c.check = check;
  std::vector<Status> statuses;
  for (const TestOutcome* t : tests) {
    statuses.push_back(t->status);
    c.tests.push_back(t->name);
    c.seconds += t->seconds;
  }
  c.status = worst_of(statuses);
  for (const TestOutcome* t : tests) {
    if (t->status != c.status) continue;
    c.message = t->message.substr(0, 2000);
    if (is_bad(c.status)) {
      c.diagnosis = diagnose_failed_test(ctx, *t);
      if (c.message.empty()) c.message = c.diagnosis->summary;
    }
    break;
  }
  if (c.status == Status::pass) {
    // A skipped test is not a passed one: say how many skipped and the first one's reason.
    const auto skipped = std::count_if(tests.begin(), tests.end(), [](const TestOutcome* t) { return t->status == Status::skip; });
    const size_t passed = tests.size() - static_cast<size_t>(skipped);
    c.message = fmt::format("{} test{} passed", passed, passed == 1 ? "" : "s");
    for (const TestOutcome* t : tests) {
      if (t->status != Status::skip) continue;
      c.message += fmt::format(", {} skipped ({})", skipped, t->message.substr(0, 300));
      break;
    }
  }
  return c;
}

bool test(CellContext& ctx, const StepSpec& spec) {
  const std::string host_gtest = ctx.engine.host_build_dir(ctx.cell) + "/gtest";
  fs::remove_all(host_gtest);
  fs::create_directories(host_gtest);
  // One ctest test per case binary; per-test verdicts from gtest's JSON, or from the
  // console output of a binary that died (kept whole: --test-output-size-failed).
  StepCommand cmd = ctx.command(spec.name, {"ctest", "--test-dir", ctx.paths.build, "--output-on-failure",
                                            "--test-output-size-failed", "4194304", "--timeout",
                                            fmt::format("{:.0f}", ctx.settings.per_test_timeout_s), "-j",
                                            std::to_string(ctx.settings.build_jobs)},
                                ctx.timeout_of(spec.name));
  cmd.env.emplace_back("GTEST_OUTPUT", "json:" + ctx.paths.build + "/gtest/");
  ProcessResult r = ctx.run_step(cmd, "");
  std::vector<TestOutcome> outcomes = collect_test_outcomes(read_text_file(cmd.log_path), host_gtest);
  if (outcomes.empty()) {
    record_no_results(ctx, cmd, r);
    return true;
  }
  std::map<std::pair<std::string, std::string>, std::vector<const TestOutcome*>> groups;
  for (const auto& o : outcomes) groups[{o.op, o.check.empty() ? "unknown" : o.check}].push_back(&o);
  for (const auto& [key, tests] : groups) ctx.add(group_result(ctx, key.first, key.second, tests));
  return true;
}

const bool kRegistered =
    (register_step(100, {"test", "", "ctest --test-dir /build", 1800, StepWhen::own_kernels,
                         "runs the case binaries of cases/ (one process each), verdicts from their gtest JSON", false,
                         test}),
     register_check(60, {"correctness", {"test"}, "test outcomes (gtest JSON)", CheckPer::op,
                         "each op agrees with an independent reference on CPU, and CPU with CUDA where a GPU is visible",
                         "wrong boxes kept by nms / wrong values from roi_align", {}}),
     register_check(70, {"gradient", {"test"}, "test outcomes (gtest JSON)", CheckPer::op,
                         "backward ops agree with finite differences", "torch.autograd.gradcheck: Jacobian mismatch", {}}),
     register_check(90, {"device", {"test"}, "test outcomes (gtest JSON)", CheckPer::op,
                         "CUDA-only cases skip with a reason in CPU cells; a cell that promises CUDA fails on a CPU-only "
                         "torch or build",
                         "AssertionError: Torch not compiled with CUDA enabled", {}, false, false, {}, false, false,
                         Weighs::breaks, "CUDA kernels not executed (no GPU here)"}),
     register_check(100, {"test", {"test"}, "collect_test_outcomes", CheckPer::cell,
                          "the case binaries ran at all (no results: none started, or the test step died first)",
                          "(no test output)", {}}),
     true);

}  // namespace

}  // namespace opmatrix
