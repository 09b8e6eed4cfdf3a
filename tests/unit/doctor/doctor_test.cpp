#include <gtest/gtest.h>

#include "doctor/doctor.h"
#include "doctor/libtorch_inspect.h"

namespace opmatrix {

namespace {
bool applies(const std::vector<DoctorFinding>& findings, const std::string& id) {
  for (const auto& f : findings)
    if (f.id == id) return f.applies;
  ADD_FAILURE() << "no finding " << id;
  return false;
}
nlohmann::json env(const char* torch_cuda, bool nms_cuda, bool meta, const char* nvcc, const char* gpu_cap) {
  nlohmann::json keys{{"CPU", true}, {"CUDA", nms_cuda}, {"Meta", meta}, {"Autograd", true}};
  nlohmann::json e;
  e["probe"] = {{"torch", "2.5.1"}, {"cxx11_abi", false}, {"nvcc", nvcc ? nvcc : ""}};
  e["probe"]["torch_cuda"] = torch_cuda ? nlohmann::json(torch_cuda) : nlohmann::json(nullptr);
  e["torchvision_view"] = {{"import_ok", true}, {"torchvision", "0.20.1"}, {"torchvision_cuda", torch_cuda ? torch_cuda : ""},
                           {"ops", {{"nms", keys}, {"deform_conv2d", keys}}}};
  e["nvcc_archs"] = {"75", "80", "86", "89", "90"};
  e["gpu"] = gpu_cap ? nlohmann::json{{"present", true}, {"name", "GPU"}, {"compute_cap", gpu_cap}, {"driver", "580"}}
                     : nlohmann::json{{"present", false}, {"reason", "none"}};
  return e;
}
}  // namespace

TEST(Doctor, HealthyCudaEnvironmentHasNoFindings) {
  auto f = doctor_findings(env("12.4", true, true, "12.4.131", "9.0"));
  for (const auto& x : f) EXPECT_FALSE(x.applies) << x.id << ": " << x.detail;
}

TEST(Doctor, TorchvisionWithoutCudaKernels) {
  EXPECT_TRUE(applies(doctor_findings(env("12.4", false, true, "12.4.131", nullptr)), "cuda_backend"));
}

TEST(Doctor, GpuNewerThanTheToolkit) {
  auto f = doctor_findings(env("12.4", true, true, "12.4.131", "10.0"));
  EXPECT_TRUE(applies(f, "gpu_arch"));
}

TEST(Doctor, MissingMetaKernel) {
  EXPECT_TRUE(applies(doctor_findings(env("12.4", true, false, "12.4.131", nullptr)), "meta_kernel"));
}

TEST(Doctor, CpuTorchNextToNvcc) {
  EXPECT_TRUE(applies(doctor_findings(env(nullptr, false, true, "13.0.88", nullptr)), "torch_without_cuda"));
  EXPECT_FALSE(applies(doctor_findings(env(nullptr, false, true, nullptr, nullptr)), "torch_without_cuda"));
}

TEST(Doctor, NvccOfAnotherMajor) {
  EXPECT_TRUE(applies(doctor_findings(env("12.4", true, true, "13.0.88", nullptr)), "cuda_versions"));
}

TEST(Doctor, UndefinedSymbolFromAFailedImport) {
  nlohmann::json e = env("12.4", true, true, "12.4.131", nullptr);
  e["torchvision_view"]["import_ok"] = false;
  e["torchvision_view"]["error"] = "OSError: _C.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev";
  auto f = doctor_findings(e);
  EXPECT_TRUE(applies(f, "undefined_symbol"));
  EXPECT_TRUE(applies(f, "cuda_backend"));
}

TEST(Doctor, InspectsARealLibtorchFolderOrSaysWhyNot) {
  LibtorchFacts missing = inspect_libtorch("/nonexistent-libtorch");
  EXPECT_NE(missing.error.find("not a folder"), std::string::npos);
}

}  // namespace opmatrix
