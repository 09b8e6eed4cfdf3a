#include <gtest/gtest.h>

#include "checks/torchvision/torchvision_judge.h"
#include "testbed.h"

namespace opmatrix {

namespace {
Cell cuda_cell() { return testbed::cell("c", "2.5.1", "0.20.1", "12.4"); }
nlohmann::json view(bool nms_cuda, const char* tv_cuda) {
  nlohmann::json keys{{"CPU", true}, {"CUDA", nms_cuda}, {"Meta", true}, {"Autograd", true}};
  nlohmann::json v{{"import_ok", true}, {"error", nullptr}, {"torch_cuda", "12.4"}, {"torchvision", "0.20.1+cu124"},
                   {"ops", {{"nms", keys}, {"roi_align", keys}}}};
  v["torchvision_cuda"] = tv_cuda ? nlohmann::json(tv_cuda) : nlohmann::json(nullptr);
  return v;
}
}  // namespace

TEST(TorchvisionCheck, MatchingPairPasses) {
  CheckResult r = check_torchvision(cuda_cell(), view(true, "12.4"), "nms: Load ok");
  EXPECT_EQ(r.status, Status::pass) << r.message;
  EXPECT_NE(r.message.find("python import view: nms CPU+CUDA+Meta+Autograd"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("C++ dlopen view: nms: Load ok"), std::string::npos);
}

TEST(TorchvisionCheck, MissingCudaKernelIsTheUsersError) {
  CheckResult r = check_torchvision(cuda_cell(), view(false, "12.4"), "");
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_NE(r.message.find("Could not run 'torchvision::nms' with arguments from the 'CUDA' backend"), std::string::npos);
  ASSERT_TRUE(r.diagnosis);
  EXPECT_EQ(r.diagnosis->kind, "not_registered");
}

TEST(TorchvisionCheck, CudaVersionMismatchFails) {
  CheckResult r = check_torchvision(cuda_cell(), view(true, "12.6"), "");
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_NE(r.message.find("torchvision was built with CUDA 12.6, torch with CUDA 12.4"), std::string::npos);
}

TEST(TorchvisionCheck, ImportFailureNamesTheDemangledSymbol) {
  nlohmann::json v = view(true, "12.4");
  v["import_ok"] = false;
  v["error"] = "import torchvision: OSError: /x/_C.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev";
  // What the script prints for ops it could not ask about after a failed import.
  v["ops"]["nms"] = {{"CPU", nullptr}, {"CUDA", nullptr}, {"Meta", nullptr}, {"Autograd", nullptr}};
  CheckResult r = check_torchvision(cuda_cell(), v, "");
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_NE(r.message.find("c10::RegisterOperators::~RegisterOperators()"), std::string::npos) << r.message;
  EXPECT_EQ(r.diagnosis->kind, "undefined_symbol");
  EXPECT_NE(r.diagnosis->fix.find("torchvision 0.20"), std::string::npos);
}

TEST(TorchvisionCheck, PairingDifferenceIsOnlyANote) {
  Cell c = cuda_cell();
  c.cuda = "none";
  c.torch = "2.14.1";
  nlohmann::json v = view(false, nullptr);
  v["torch_cuda"] = nullptr;
  v["torchvision"] = "0.27.0";
  CheckResult r = check_torchvision(c, v, "");
  EXPECT_EQ(r.status, Status::pass) << r.message;
  EXPECT_NE(r.message.find("upstream pairs torch 2.14.1 with torchvision 0.29"), std::string::npos) << r.message;
}

TEST(TorchvisionCheck, SummarisesTheRegistrationBinarysJson) {
  auto j = nlohmann::json::parse(R"({"testsuites": [{"name": "OpRegistration", "testsuite": [
    {"name": "Load/nms", "status": "RUN", "result": "COMPLETED"},
    {"name": "MetaKernel/nms", "status": "RUN", "result": "COMPLETED", "failures": [{"failure": "no Meta"}]},
    {"name": "CudaKernel/nms", "status": "RUN", "result": "SKIPPED"}]}]})");
  EXPECT_EQ(summarize_registration_json(j), "nms: Load ok, MetaKernel missing, CudaKernel skipped");
}

// torch-edit-distance 0.4.0 beside Debian's CUDA torch 2.6 and its CPU-only torchvision: the
// import works without torchvision, its metadata asks for none; the fault is the environment's.
TEST(TorchvisionCheck, AProjectThatDoesNotUseTorchvisionIsNotJudgedByIt) {
  const nlohmann::json imported{{"ok", true}, {"torchvision_loaded", false}};
  const nlohmann::json requirements{{"requirements", {"numpy"}}, {"left_out", nlohmann::json::array()}};
  const auto why = torchvision_unused(imported, requirements, true);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "its import works without torchvision and its metadata does not require torchvision");
  CheckResult r =
      not_the_projects(check_torchvision(cuda_cell(), view(false, "12.4"), ""), "torch-edit-distance", *why);
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_EQ(r.message.rfind("not torch-edit-distance's finding: its import works without torchvision", 0), 0u)
      << r.message;
  // The environment's fault is still said, word for word.
  EXPECT_NE(r.message.find("Could not run 'torchvision::nms' with arguments from the 'CUDA' backend"), std::string::npos);
  EXPECT_EQ(not_the_projects(check_torchvision(cuda_cell(), view(true, "12.4"), ""), "x", *why).status, Status::pass);
}

TEST(TorchvisionCheck, AProjectUsesTorchvisionByItsImportOrItsMetadata) {
  const nlohmann::json none{{"requirements", nlohmann::json::array()}, {"left_out", nlohmann::json::array()}};
  EXPECT_FALSE(torchvision_unused({{"ok", true}, {"torchvision_loaded", true}}, none, true));
  const nlohmann::json declared{{"left_out", {{{"requirement", "torchvision>=0.15"}, {"why", "the cell's own"}}}}};
  EXPECT_FALSE(torchvision_unused({{"ok", true}, {"torchvision_loaded", false}}, declared, true));
  EXPECT_FALSE(torchvision_unused(nullptr, declared, false));
  const nlohmann::json named_alike{{"requirements", {"torchvision-extra-decoders"}}};
  EXPECT_TRUE(torchvision_unused({{"ok", true}, {"torchvision_loaded", false}}, named_alike, true));
  // An import from before the field, or none declared: unknown, so torchvision stays judged.
  EXPECT_FALSE(torchvision_unused({{"ok", true}}, none, true));
  EXPECT_FALSE(torchvision_unused(nullptr, none, true));
  // A resolve step that printed no answer: nothing known from the metadata, the import decides.
  EXPECT_TRUE(torchvision_unused({{"ok", true}, {"torchvision_loaded", false}}, nullptr, true));
  EXPECT_TRUE(torchvision_unused({{"ok", true}, {"torchvision_loaded", false}}, {{"requirements", {1, nullptr}}}, true));
  // A failed import counts only where it names torchvision.
  EXPECT_FALSE(torchvision_unused({{"ok", false}, {"error", "RuntimeError: operator torchvision::nms does not exist"}},
                                  none, true));
  const auto other = torchvision_unused({{"ok", false}, {"error", "ImportError: libfoo.so"}}, none, true);
  ASSERT_TRUE(other);
  EXPECT_NE(other->find("its import failed first, on something else"), std::string::npos) << *other;
}

// modulated-deform-conv 1.0.2 in the same runtime: its build fails on AT_CHECK; nothing of it
// ran, so the cell's red is its build's alone.
TEST(TorchvisionCheck, AProjectThatNeverBuiltDidNotUseTorchvision) {
  const auto why = torchvision_unused(nullptr, {{"requirements", {"numpy"}}}, false);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "it did not build (see build) and its metadata does not require torchvision");
}

}  // namespace opmatrix
