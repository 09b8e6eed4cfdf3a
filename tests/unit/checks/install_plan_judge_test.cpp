// The `install-plan` check from install_plan.py's JSON: what `pip install NAME==VERSION` does next
// to the runtime's torch — installs it as it is, replaces torch (a limit, each package from ->
// to), finds no wheel (a fail) — and the network's failure told apart as the run's.
#include <gtest/gtest.h>

#include "checks/install_plan/install_plan_judge.h"
#include "checks/registry.h"

namespace opmatrix {
namespace {

using json = nlohmann::json;

InstallPlanContext context() { return {{"wheel libx==1.0", "podman run ... install_plan.py", "pip: ...\n", 1.5}, false, 1}; }

}  // namespace

TEST(InstallPlanCheck, InstallingAsItIsPasses) {
  const json ok = {{"ok", true}, {"requirement", "libx==1.0"}, {"plan", "installs"},
                   {"install", json::array({{{"name", "libx"}, {"version", "1.0"}}})}, {"torch_family", json::array()}};
  const CheckResult c = install_plan_check(ok, context());
  EXPECT_EQ(c.status, Status::pass);
  EXPECT_EQ(c.message, "pip install libx==1.0 installs it next to this torch as it is (1 package)");
}

TEST(InstallPlanCheck, ReplacingTorchNamesEachPackageFromAndTo) {
  const json swap = {{"ok", true}, {"requirement", "libx==1.0"}, {"plan", "replaces_torch"}, {"cached", true},
                     {"torch_family", json::array({{{"name", "torch"}, {"from", "2.15.0"}, {"to", "2.5.1"}},
                                                   {{"name", "triton"}, {"from", nullptr}, {"to", "3.1.0"}},
                                                   {{"name", "nvidia-cublas-cu12"}, {"from", "12.4.5.8"}, {"to", "12.1.3.1"}},
                                                   {{"name", "nvidia-nccl-cu12"}, {"from", nullptr}, {"to", "2.21.5"}}})}};
  const CheckResult c = install_plan_check(swap, context());
  EXPECT_EQ(c.status, Status::fail);
  EXPECT_EQ(c.message, "pip install libx==1.0 would replace this runtime's torch 2.15.0 -> 2.5.1, triton (not "
                       "installed) -> 3.1.0 and 2 NVIDIA packages: it works here only installed with --no-deps (answer cached)");
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "replaces_torch");
  EXPECT_EQ(c.diagnosis->repro, "podman run ... install_plan.py");
}

// deepmd-kit 3.2.0 requires torch only under its [torch] extra: the plan is that extra's, and says so.
TEST(InstallPlanCheck, ThePlanOfATorchExtraSaysItIsTheExtras) {
  const json swap = {{"ok", true}, {"requirement", "deepmd-kit[torch]==3.2.0"}, {"plan", "replaces_torch"},
                     {"torch_extra", "torch"},
                     {"torch_family", json::array({{{"name", "torch"}, {"from", "2.14.1"}, {"to", "2.11.0"}}})}};
  EXPECT_EQ(install_plan_check(swap, context()).message,
            "pip install deepmd-kit[torch]==3.2.0 (its [torch] extra: the only place its metadata requires torch) would "
            "replace this runtime's torch 2.14.1 -> 2.11.0: it works here only installed with --no-deps");
}

TEST(InstallPlanCheck, TheAnswerNamesThePipThatGaveIt) {
  const json ok = {{"ok", true}, {"requirement", "libx==1.0"}, {"plan", "installs"}, {"resolver", "pip 26.0.1 with fast-deps"},
                   {"install", json::array({{{"name", "libx"}, {"version", "1.0"}}, {{"name", "numpy"}, {"version", "2.3.0"}}})},
                   {"torch_family", json::array()}};
  EXPECT_EQ(install_plan_check(ok, context()).message,
            "pip install libx==1.0 installs it next to this torch as it is (2 packages); resolved by pip 26.0.1 with fast-deps");
  const json kept = {{"ok", true}, {"requirement", "libx==1.0"}, {"plan", "replaces_torch"}, {"cached", true},
                     {"resolver", "this runtime's pip 23.0.1"},
                     {"torch_family", json::array({{{"name", "torch"}, {"from", "2.15.0"}, {"to", "2.5.1"}}})}};
  EXPECT_EQ(install_plan_check(kept, context()).message,
            "pip install libx==1.0 would replace this runtime's torch 2.15.0 -> 2.5.1: it works here only installed with "
            "--no-deps (answer cached); resolved by this runtime's pip 23.0.1");
}

TEST(InstallPlanCheck, NoWheelIsTheReleasesAndTheNetworkIsTheRuns) {
  const json none = {{"ok", false}, {"error", "no_wheel"}, {"message", "pip finds no wheel of libx==1.0 for Python 3.13"}};
  CheckResult c = install_plan_check(none, context());
  EXPECT_EQ(c.status, Status::fail);
  EXPECT_EQ(c.message, "pip finds no wheel of libx==1.0 for Python 3.13");
  // A requirement without a wheel (torchdata 0.6.1's torch==2.0.1 in Python 3.13) is the release's
  // too, with its own fix.
  const json pinned = {{"ok", false}, {"error", "requirement_no_wheel"},
                       {"message", "pip cannot install libx==1.0 here: it requires torch==2.0.1, which has no wheel"}};
  c = install_plan_check(pinned, context());
  EXPECT_EQ(c.status, Status::fail);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_NE(c.diagnosis->fix.find("a requirement the release names has no wheel"), std::string::npos) << c.diagnosis->fix;
  // A pin to a local version (torch-rbln 0.12.0's torch==2.13.0+cpu) is the release's too; its
  // fix names the index that serves that build.
  const json local = {{"ok", false}, {"error", "requirement_local_version"},
                      {"message", "pip cannot install libx==1.0 from PyPI: it requires torch==2.13.0+cpu"},
                      {"index", "https://download.pytorch.org/whl/cpu"}};
  c = install_plan_check(local, context());
  EXPECT_EQ(c.status, Status::fail);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_NE(c.diagnosis->fix.find("--extra-index-url https://download.pytorch.org/whl/cpu"), std::string::npos)
      << c.diagnosis->fix;
  const json down = {{"ok", false}, {"error", "network"}, {"message", "pip could not reach the index"}};
  c = install_plan_check(down, context());
  EXPECT_EQ(c.status, Status::error);
  c = install_plan_check(json(), InstallPlanContext{{"", "", "", 300}, true, -1});
  EXPECT_EQ(c.status, Status::error);
  EXPECT_EQ(c.message, "pip's dry run ran past its time limit");
}

// A placeholder that fetches its wheel from another index this run does not reach (NVIDIA's
// wheel-stub: torch-tensorrt's tensorrt-cu13-libs) is the run's limit, never the library's red,
// and the fix names that index.
TEST(InstallPlanCheck, AWheelOnAnIndexTheRunDoesNotReachIsTheRuns) {
  const json stub = {{"ok", false}, {"error", "index_elsewhere"},
                     {"message", "tensorrt-cu13-libs 11.1.0.106 is a placeholder on PyPI that downloads its wheel from "
                                 "https://pypi.nvidia.com, which this run does not reach: not checked here"},
                     {"package", "tensorrt-cu13-libs"}, {"version", "11.1.0.106"}, {"index", "https://pypi.nvidia.com"}};
  const CheckResult c = install_plan_check(stub, context());
  EXPECT_EQ(c.status, Status::error);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_TRUE(is_infrastructure("install-plan", c.diagnosis->kind));
  EXPECT_EQ(c.diagnosis->fix, "run where https://pypi.nvidia.com is reachable (a GitHub runner reaches it); by hand: pip "
                              "install --extra-index-url https://pypi.nvidia.com tensorrt-cu13-libs==11.1.0.106");
}

}  // namespace opmatrix
