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

}  // namespace opmatrix
