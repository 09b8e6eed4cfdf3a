// The `requirements` check from requirements.py's JSON: what the cell got of the project's own
// requirements, or which one cannot be had for the cell's Python, told apart from the run's
// own failures (network).
#include <gtest/gtest.h>

#include "checks/registry.h"
#include "checks/requirements/metadata_rule.h"
#include "checks/requirements/missing_module.h"
#include "checks/requirements/refusing_requirement.h"
#include "checks/requirements/requirements_judge.h"

namespace opmatrix {
namespace {

using json = nlohmann::json;

RequirementsContext context() { return {"pypi torch-sparse==0.6.18", "podman run ... requirements.py resolve", "the log\n", 3}; }

}  // namespace

TEST(RequirementsCheck, InstalledRequirementsAreNamedWithTheirVersions) {
  const json resolved = {{"ok", true}, {"requirements", {"scipy", "pytest"}}, {"cached", false},
                         {"install", {{{"name", "scipy"}, {"version", "1.14.1"}}, {{"name", "pytest"}, {"version", "8.3.4"}}}}};
  const CheckResult c = requirements_check(resolved, {{"ok", true}}, context());
  EXPECT_EQ(c.status, Status::pass);
  EXPECT_EQ(c.message, "pypi torch-sparse==0.6.18: installed scipy 1.14.1, pytest 8.3.4 (for scipy, pytest)");
}

TEST(RequirementsCheck, NothingToInstallIsAPassThatSaysWhy) {
  EXPECT_EQ(requirements_check({{"ok", true}, {"requirements", json::array()}}, nullptr, context()).message,
            "pypi torch-sparse==0.6.18 requires nothing besides torch");
  const CheckResult there = requirements_check({{"ok", true}, {"requirements", {"numpy"}}, {"install", json::array()}},
                                               nullptr, context());
  EXPECT_EQ(there.status, Status::pass);
  EXPECT_EQ(there.message, "pypi torch-sparse==0.6.18: numpy already in the cell");
}

TEST(RequirementsCheck, BuildRequirementsFetchedForTheBuildAreSaidOnce) {
  const json resolved = {{"ok", true}, {"requirements", json::array()}, {"build_requires", {"scikit-build-core==0.11.6"}}};
  EXPECT_EQ(requirements_check(resolved, nullptr, context()).message,
            "pypi torch-sparse==0.6.18 requires nothing besides torch; for its build: scikit-build-core==0.11.6 (its "
            "[build-system] requires, which the cell lacked)");
}

// Torch required only under an extra (deepmd-kit[torch]): that extra's requirements were added, said so.
TEST(RequirementsCheck, ATorchExtrasRequirementsAreSaidToBeTheExtras) {
  const json resolved = {{"ok", true}, {"requirements", {"mpich"}}, {"torch_extra", "torch"},
                         {"install", {{{"name", "mpich"}, {"version", "5.0.2"}}}}};
  EXPECT_EQ(requirements_check(resolved, {{"ok", true}}, context()).message,
            "pypi torch-sparse==0.6.18: installed mpich 5.0.2 (for mpich); with its [torch] extra, the only place its "
            "metadata requires torch, as its torch side's users install it");
}

TEST(RequirementsCheck, ARequirementThePythonCannotHaveIsTheLibrarysWithTheFix) {
  const json refused = {{"ok", false}, {"error", "unresolvable"}, {"python", "3.9"},
                        {"message", "scipy>=1.14 cannot be had for the cell's Python 3.9 from the index"}};
  const CheckResult c = requirements_check(refused, nullptr, context());
  EXPECT_EQ(c.status, Status::fail);
  ASSERT_TRUE(c.diagnosis);
  EXPECT_EQ(c.diagnosis->kind, "unresolvable");
  EXPECT_EQ(c.message, "scipy>=1.14 cannot be had for the cell's Python 3.9 from the index");
  EXPECT_NE(c.diagnosis->fix.find("Python 3.9"), std::string::npos) << c.diagnosis->fix;
  EXPECT_EQ(c.diagnosis->repro, "podman run ... requirements.py resolve");
}

TEST(RequirementsCheck, TheNetworkAndNoAnswerAreTheRunsNotTheLibrarys) {
  EXPECT_EQ(requirements_check({{"ok", false}, {"error", "network"}, {"message", "no route"}}, nullptr, context()).status,
            Status::error);
  const CheckResult silent = requirements_check(json(json::value_t::discarded), nullptr, context());
  EXPECT_EQ(silent.status, Status::error);
  EXPECT_EQ(silent.message, "requirements.py printed no result (see the log)");
  const json stub = {{"ok", false}, {"error", "index_elsewhere"}, {"message", "tensorrt-cu13-libs 11.1.0.106 is a placeholder"},
                     {"package", "tensorrt-cu13-libs"}, {"version", "11.1.0.106"}, {"index", "https://pypi.nvidia.com"}};
  const CheckResult elsewhere = requirements_check(stub, nullptr, context());
  EXPECT_EQ(elsewhere.status, Status::error);
  ASSERT_TRUE(elsewhere.diagnosis);
  EXPECT_TRUE(is_infrastructure("requirements", elsewhere.diagnosis->kind));
  EXPECT_NE(elsewhere.diagnosis->fix.find("--extra-index-url https://pypi.nvidia.com tensorrt-cu13-libs==11.1.0.106"),
            std::string::npos) << elsewhere.diagnosis->fix;
}

TEST(RequirementsCheck, AFailedOfflineInstallIsReportedAfterAGoodResolve) {
  const json resolved = {{"ok", true}, {"requirements", {"scipy"}}, {"install", {{{"name", "scipy"}, {"version", "1.14.1"}}}}};
  const CheckResult c = requirements_check(resolved, {{"ok", false}, {"error", "install_failed"}, {"message", "pip said no"}},
                                           context());
  EXPECT_EQ(c.status, Status::fail);
  EXPECT_EQ(c.message, "pip said no");
}

}  // namespace opmatrix

namespace opmatrix {

namespace {

std::vector<CheckResult> failed_import(const std::string& error) {
  CheckResult c;
  c.check = "load";
  c.subtest = "import";
  c.status = Status::fail;
  c.message = "import mylib failed: " + error;
  c.diagnosis = Diagnosis{"python_import_error", "", "read the end of the log", "repro", error};
  return {c};
}

}  // namespace

TEST(MissingModule, TheModuleIsTakenFromPythonsWordsNotTorchs) {
  EXPECT_EQ(missing_module("ModuleNotFoundError: No module named 'scipy.sparse'"), "scipy");
  EXPECT_EQ(missing_module("No module named 'fvcore'"), "fvcore");
  EXPECT_EQ(missing_module("No module named 'torch.export'"), "");
  EXPECT_EQ(missing_module("ImportError: undefined symbol"), "");
}

TEST(MissingModule, AModuleNothingRequiresIsAnUndeclaredRequirementWithItsFix) {
  auto checks = failed_import("ModuleNotFoundError: No module named 'fvcore'");
  name_missing_requirement("detlib (.)", {{"ok", true}, {"requirements", {"numpy"}}}, checks);
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, "undeclared_requirement");
  EXPECT_EQ(checks[0].diagnosis->summary, "the import needs the module 'fvcore', which nothing detlib (.) requires "
                                          "provides (it requires numpy): a user's pip install does not bring it either");
  EXPECT_NE(checks[0].diagnosis->fix.find("install_requires"), std::string::npos);
  EXPECT_NE(checks[0].diagnosis->fix.find("project's requires:"), std::string::npos);
}

// triton-ascend 3.2.0 imports pybind11 at import and requires nothing: the log rules call pybind11
// the image's (a build needs it), but for the import of an installed package it is its own
// undeclared requirement.
TEST(MissingModule, AModuleTheLogRulesCallTheImagesIsTheImportsUndeclaredRequirement) {
  auto checks = failed_import("ModuleNotFoundError: No module named 'pybind11'");
  checks[0].diagnosis->kind = "image_missing_prerequisite";
  name_missing_requirement("wheel triton-ascend==3.2.0", {{"ok", true}, {"requirements", nlohmann::json::array()}},
                           checks);
  EXPECT_EQ(checks[0].diagnosis->kind, "undeclared_requirement");
  EXPECT_EQ(checks[0].status, Status::fail);
  EXPECT_NE(checks[0].diagnosis->summary.find("the import needs the module 'pybind11'"), std::string::npos);
  // Another infrastructure kind, or one of the image's that is no module, is left as it is.
  auto other = failed_import("gcc: command not found");
  other[0].diagnosis->kind = "image_missing_prerequisite";
  name_missing_requirement("p", nullptr, other);
  EXPECT_EQ(other[0].diagnosis->kind, "image_missing_prerequisite");
}

TEST(MissingModule, ARequirementTheCellCouldNotGetIsTheOneCause) {
  auto checks = failed_import("ModuleNotFoundError: No module named 'scipy'");
  CheckResult req;
  req.check = "requirements";
  req.status = Status::fail;
  req.message = "scipy>=1.15 cannot be had for the cell's Python 3.9";
  req.diagnosis = Diagnosis{"unresolvable", req.message, "require a release of it that exists for Python 3.9", "", ""};
  checks.push_back(req);
  name_missing_requirement("p", nullptr, checks);
  EXPECT_EQ(checks[0].diagnosis->kind, "requirement_not_installed");
  EXPECT_EQ(checks[0].diagnosis->fix, "require a release of it that exists for Python 3.9");
}

// torch-tensorrt 2.14.0: its requirements could not be had because one is a placeholder on an
// index this run does not reach, so its import's "No module named 'packaging'" is not checked.
TEST(MissingModule, ARequirementTheRunCouldNotGetLeavesTheImportUnchecked) {
  auto checks = failed_import("ModuleNotFoundError: No module named 'packaging'");
  CheckResult req;
  req.check = "requirements";
  req.status = Status::error;
  req.message = "tensorrt-cu13-libs 11.1.0.106 is a placeholder on PyPI that downloads its wheel from https://pypi.nvidia.com";
  req.diagnosis = Diagnosis{"index_elsewhere", req.message, "run where https://pypi.nvidia.com is reachable", "", ""};
  checks.push_back(req);
  name_missing_requirement("wheel torch-tensorrt==2.14.0", nullptr, checks);
  EXPECT_EQ(checks[0].status, Status::error);
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_TRUE(is_infrastructure("load", checks[0].diagnosis->kind));
  EXPECT_EQ(checks[0].diagnosis->summary.rfind("not checked here: the import needs the module 'packaging'", 0), 0u)
      << checks[0].diagnosis->summary;
  EXPECT_EQ(checks[0].diagnosis->fix, "run where https://pypi.nvidia.com is reachable");
}

// dgl 2.1.0 next to torch 2.1.2: `torchdata>=0.5.0` gets torchdata 0.11.0, which has no
// torchdata.datapipes. The requirement is there; the release pip picked for it lacks the module.
TEST(MissingModule, ASubmoduleTheInstalledReleaseOfARequirementLacksNamesThatRelease) {
  auto checks = failed_import("ModuleNotFoundError: No module named 'torchdata.datapipes'");
  name_missing_requirement("wheel dgl==2.1.0",
                           {{"ok", true},
                            {"requirements", {"numpy>=1.14.0", "torchdata>=0.5.0"}},
                            {"install", {{{"name", "tqdm"}, {"version", "4.70.1"}}, {{"name", "torchdata"}, {"version", "0.11.0"}}}}},
                           checks);
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, "requirement_lacks_module");
  EXPECT_EQ(checks[0].diagnosis->summary, "the import needs 'torchdata.datapipes', which torchdata 0.11.0 does not have: "
                                          "pip installed that release for the requirement torchdata>=0.5.0, which does "
                                          "not rule it out");
  EXPECT_NE(checks[0].diagnosis->fix.find("bound the requirement"), std::string::npos);
}

// vptq 0.0.5.post1 beside torch 2.5.1: its import fails inside transformers, which pip picked at
// 5.24.0 for `transformers>=4.45` and which disables torch before 2.6.
TEST(RefusingRequirement, TheReleasePipPickedAndItsRequirementAreNamed) {
  CheckResult import;
  import.check = "load";
  import.subtest = "import";
  import.status = Status::fail;
  import.message = "import vptq fails inside transformers, which refuses this torch: \"[transformers] Disabling "
                   "PyTorch because PyTorch >= 2.6 is required but found 2.5.1\"";
  import.diagnosis = Diagnosis{"requirement_refuses_torch", import.message, "x", "r", ""};
  std::vector<CheckResult> checks{import};
  name_refusing_release({{"ok", true},
                         {"requirements", {"datasets", "transformers>=4.45"}},
                         {"install", {{{"name", "datasets"}, {"version", "5.2.0"}}, {{"name", "transformers"}, {"version", "5.24.0"}}}}},
                        checks);
  EXPECT_EQ(checks[0].message, "import vptq fails inside transformers 5.24.0, which refuses this torch: \"[transformers] "
                               "Disabling PyTorch because PyTorch >= 2.6 is required but found 2.5.1\" (pip picks "
                               "transformers 5.24.0 for the requirement transformers>=4.45, which does not rule it out)");
  EXPECT_EQ(checks[0].diagnosis->summary, checks[0].message);
  EXPECT_EQ(checks[0].diagnosis->fix, "bound the requirement to the releases of transformers that support this torch "
                                      "(5.24.0 does not), or install one of them beside it");
  // Without the requirements step's report the load's words stand.
  std::vector<CheckResult> alone{import};
  name_refusing_release(nullptr, alone);
  EXPECT_EQ(alone[0].message, import.message);
}

// torchrl 0.5.0 beside torch 2.5.1: `tensordict>=0.5.0` gets tensordict 0.14.3, whose
// tensordict.nn.probabilistic has no interaction_mode. A name a torch module lacks is torch's (the
// torch rules say it), not a requirement's.
TEST(MissingModule, ANameTheInstalledReleaseOfARequirementLacksNamesThatRelease) {
  const json resolved = {{"ok", true},
                         {"requirements", {"numpy", "tensordict>=0.5.0"}},
                         {"install", {{{"name", "tensordict"}, {"version", "0.14.3"}}}}};
  auto checks = failed_import("ImportError: cannot import name 'interaction_mode' from 'tensordict.nn.probabilistic' "
                              "(/build/site/tensordict/nn/probabilistic.py)");
  name_missing_requirement("wheel torchrl==0.5.0", resolved, checks);
  ASSERT_TRUE(checks[0].diagnosis);
  EXPECT_EQ(checks[0].diagnosis->kind, "requirement_lacks_module");
  EXPECT_EQ(checks[0].diagnosis->summary, "the import needs 'interaction_mode' from 'tensordict.nn.probabilistic', "
                                          "which tensordict 0.14.3 does not have: pip installed that release for the "
                                          "requirement tensordict>=0.5.0, which does not rule it out");
  EXPECT_EQ(checks[0].diagnosis->fix, "bound the requirement to the releases of tensordict that have 'interaction_mode' "
                                      "(0.14.3 has not), or stop importing it");
  auto torchs = failed_import("ImportError: cannot import name 'register_fake' from 'torch.library'");
  name_missing_requirement("wheel x==1", resolved, torchs);
  EXPECT_EQ(torchs[0].diagnosis->kind, "python_import_error");
}

TEST(MissingModule, OtherImportFailuresAreLeftAlone) {
  auto checks = failed_import("ImportError: libc10.so: cannot open shared object file");
  name_missing_requirement("p", nullptr, checks);
  EXPECT_EQ(checks[0].diagnosis->kind, "python_import_error");
}

// The one rule of where a missing module should have come from, the tests check's too.
TEST(MissingModule, ItsOriginIsTheRequirementsStepsOutcome) {
  const json resolved = {{"ok", true}, {"requirements", {"opencv-python>=4", "scikit-image"}},
                         {"install", {{{"name", "scipy"}, {"version", "1.14.1"}}}}};
  EXPECT_EQ(module_origin("cv2", resolved, false), ModuleOrigin::required);
  EXPECT_EQ(module_origin("scipy", resolved, false), ModuleOrigin::required) << "what pip brought with a requirement";
  EXPECT_EQ(module_origin("onnx", resolved, false), ModuleOrigin::not_required);
  EXPECT_EQ(module_origin("onnx", nullptr, false), ModuleOrigin::not_required);
  EXPECT_EQ(module_origin("cv2", resolved, true), ModuleOrigin::requirements_failed);
}

TEST(MissingModule, AnImportThatLacksAModuleItsRequirementsProvideKeepsItsOwnDiagnosis) {
  auto checks = failed_import("ModuleNotFoundError: No module named 'cv2'");
  name_missing_requirement("p", {{"ok", true}, {"requirements", {"opencv-python"}}}, checks);
  EXPECT_EQ(checks[0].diagnosis->kind, "python_import_error");
}

}  // namespace opmatrix

namespace opmatrix {

// pip runs setup.py to read the metadata, and the build runs it again: a setup.py that raises
// without a GPU is one red (the build's, which names why), not two.
TEST(MetadataRule, AMetadataFailureTheBuildExplainsIsNotASecondRed) {
  CheckResult req;
  req.check = "requirements";
  req.status = Status::fail;
  req.message = "pip could not read the project's metadata: metadata-generation-failed";
  req.diagnosis = Diagnosis{"metadata", req.message, "fix setup.py", "r", ""};
  CheckResult build;
  build.check = "build";
  build.status = Status::fail;
  build.message = "the build step failed";
  build.diagnosis = Diagnosis{"setup_needs_gpu", "setup.py refuses to build without a visible GPU: NotImplementedError",
                              "gate on CUDA_HOME", "r", ""};
  std::vector<CheckResult> checks = {req, build};
  metadata_explained_by_build(checks);
  EXPECT_EQ(checks[0].status, Status::skip);
  EXPECT_FALSE(checks[0].diagnosis);
  EXPECT_NE(checks[0].message.find("see build: setup.py refuses to build without a visible GPU"), std::string::npos)
      << checks[0].message;
  EXPECT_EQ(checks[1].status, Status::fail);
  // With the build passing, the metadata red stands.
  std::vector<CheckResult> alone = {req};
  metadata_explained_by_build(alone);
  EXPECT_EQ(alone[0].status, Status::fail);
  // A build not checked here (a CUDA-only setup.py in a runtime without CUDA): no red either.
  build.status = Status::skip;
  build.diagnosis = Diagnosis{"needs_cuda_to_build", "not checked here: a CUDA-only build", "a CUDA cell", "r", ""};
  std::vector<CheckResult> lacking = {req, build};
  metadata_explained_by_build(lacking);
  EXPECT_EQ(lacking[0].status, Status::skip);
  EXPECT_NE(lacking[0].message.find("for the reason the build does not run here (see build: not checked here: a "
                                    "CUDA-only build)"), std::string::npos) << lacking[0].message;
}

}  // namespace opmatrix
