// What a library promises, applied to its results (checks/promises/promises.h) and to its
// registration (namespace_checks with promises): by-design properties make no red, and what a
// GPU-less builder cannot know is "not checked here", neither red nor green.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "../results/check_result_fixture.h"
#include "checks/load/load_judge.h"
#include "checks/promises/promises.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

Project wheel(const std::string& pinned) {
  Project p;
  p.wheel = pinned;
  p.ns = "lib";
  return p;
}

OpPromise promise(std::vector<std::string> backends, std::string registered, std::string why, std::string arch = "") {
  OpPromise o;
  o.backends = std::move(backends);
  o.registered = std::move(registered);
  o.why = std::move(why);
  o.arch = std::move(arch);
  return o;
}

fs::path source_tree(const std::string& name, const std::string& file, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("opmatrix-promises-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir / "csrc");
  std::ofstream(dir / file) << text;
  return dir;
}

}  // namespace

TEST(CpuOnlyByDesign, DeclaredNamedOrWithoutCudaSources) {
  Project declared = wheel("lib==1.0");
  declared.promises.backends = {"cpu"};
  declared.promises.why = "the CPU wheel";
  EXPECT_EQ(cpu_only_by_design(declared, ""), std::optional<std::string>("declared CPU-only: the CPU wheel"));
  EXPECT_EQ(cpu_only_by_design(wheel("fbgemm-gpu-cpu==1.0.0"), ""),
            std::optional<std::string>("fbgemm-gpu-cpu is the CPU variant by its name"));
  EXPECT_FALSE(cpu_only_by_design(wheel("fbgemm-gpu==1.0.0"), ""));
  // A wheel whose extension registers no dispatcher ops (torchrl's _torchrl.so): host code only.
  Project helper = wheel("torchrl==0.6.0");
  helper.ns.clear();
  EXPECT_EQ(cpu_only_by_design(helper, ""),
            std::optional<std::string>("its wheel's extension registers no dispatcher ops (no namespace): a host-side "
                                       "helper, nothing of it is CUDA"));
  // A source folder: CPU-only where nothing in it is CUDA; a .cu file or a CUDAExtension is a promise.
  Project src;
  src.path = "lib";
  EXPECT_TRUE(cpu_only_by_design(src, source_tree("cpp", "setup.py", "CppExtension('x', ['csrc/x.cpp'])").string()));
  EXPECT_FALSE(cpu_only_by_design(src, source_tree("cuext", "setup.py", "CUDAExtension('x', ['a.cpp'])").string()));
  EXPECT_FALSE(cpu_only_by_design(src, source_tree("cu", "csrc/k.cu", "__global__ void k() {}").string()));
  EXPECT_FALSE(cpu_only_by_design(src, source_tree("cmake", "CMakeLists.txt", "project(x LANGUAGES CXX CUDA)").string()));
}

// torchao 0.18: mxfp8_quantize's fake kernel is registered only with an sm_100 GPU visible.
TEST(OpPromises, ARegistrationThatNeedsAGpuIsNotCheckedWithoutOne) {
  Project p = wheel("torchao==0.18.0");
  p.promises.ops["mxfp8_quantize"] = promise({"cuda"}, "with_gpu", "fake kernel registered with CUDA >= 12.8 and sm_100", "10.0");
  std::vector<CheckResult> checks = {check_result("mxfp8_quantize", "meta", Status::fail, "no Meta kernel"),
                                     check_result("mxfp8_quantize", "registration", Status::pass, "has CUDA kernels"),
                                     check_result("other", "meta", Status::fail, "no Meta kernel")};
  apply_op_promises(&p, nlohmann::json{{"gpus", {"9.0"}}}, checks);
  EXPECT_EQ(checks[0].status, Status::skip);
  EXPECT_EQ(checks[0].message.rfind("not checked here (registered only where a GPU of sm_100 or newer is visible: "
                                    "fake kernel registered with CUDA >= 12.8 and sm_100)", 0), 0u) << checks[0].message;
  EXPECT_EQ(checks[1].status, Status::pass);
  EXPECT_EQ(checks[2].status, Status::fail);  // no promise: judged as measured
  // With the GPU it needs, it is judged.
  std::vector<CheckResult> with_gpu = {check_result("mxfp8_quantize", "meta", Status::fail, "no Meta kernel")};
  apply_op_promises(&p, nlohmann::json{{"gpus", {"10.0"}}}, with_gpu);
  EXPECT_EQ(with_gpu[0].status, Status::fail);
}

TEST(OpPromises, ACudaOnlyOpsBehaviourIsNotCheckedWithoutAGpuButItsRegistrationIs) {
  Project p = wheel("torchao==0.18.0");
  p.promises.ops["sparse_f8"] = promise({"cuda"}, "always", "STABLE_TORCH_LIBRARY_IMPL(torchao, CUDA, ...) only");
  std::vector<CheckResult> checks = {
      check_result("sparse_f8", "opcheck", Status::fail, "Could not run 'torchao::sparse_f8' with arguments from the 'CPU' backend", "test_schema"),
      check_result("sparse_f8", "registration", Status::fail, "lib::sparse_f8: no CUDA kernel")};
  apply_op_promises(&p, nlohmann::json{{"gpus", nlohmann::json::array()}}, checks);
  EXPECT_EQ(checks[0].status, Status::skip);
  EXPECT_NE(checks[0].message.find("a CUDA-only op, as promised"), std::string::npos);
  EXPECT_EQ(checks[1].status, Status::fail);  // a CUDA-only op without its CUDA kernel is broken
}

// fbgemm-gpu-cpu's FloatToMSFPQuantized: its only kernel is CUDA, and the CPU variant builds none.
TEST(OpPromises, ACudaOnlyOpInACpuOnlyLibraryHasNothingToJudge) {
  Project p = wheel("fbgemm-gpu-cpu==1.0.0");
  p.promises.ops["FloatToMSFPQuantized"] = promise({"cuda"}, "always", "its only kernel is quantize_msfp.cu");
  std::vector<CheckResult> checks = {check_result("FloatToMSFPQuantized", "meta", Status::fail, "no Meta kernel"),
                                     check_result("FloatToMSFPQuantized", "registration", Status::pass, "")};
  apply_op_promises(&p, nlohmann::json::object(), checks, /*cpu_only_library=*/true);
  EXPECT_EQ(checks[0].status, Status::skip);
  EXPECT_EQ(checks[0].message.rfind("not checked here (a CUDA-only op, as promised: its only kernel is quantize_msfp.cu; "
                                    "this CPU-only variant has no kernel for it)", 0), 0u) << checks[0].message;
}

// torchao's da8w4_linear_cpu: built only for some CPUs; where this build lacks it, not a red.
TEST(OpPromises, AnOpBuiltOnlyForSomeCpusIsNotCheckedWhereItIsMissing) {
  Project p = wheel("torchao==0.18.0");
  p.promises.ops["da8w4_linear_cpu"] = promise({"cpu"}, "on_some_cpus", "USE_CPU_KERNELS and AVX512 builds only");
  std::vector<CheckResult> checks = {check_result("da8w4_linear_cpu", "registration", Status::fail, "no CPU kernel"),
                                     check_result("da8w4_linear_cpu", "compile", Status::error, "Could not run")};
  apply_op_promises(&p, nlohmann::json::object(), checks);
  for (const auto& c : checks) {
    EXPECT_EQ(c.status, Status::skip) << c.check;
    EXPECT_EQ(c.message.rfind("not checked here (built only for some CPUs, not this build: USE_CPU_KERNELS", 0), 0u);
  }
}

TEST(OpPromises, RegistrationExpectsOnlyThePromisedBackends) {
  const auto report = nlohmann::json::parse(R"({"ops": {
      "quant": {"CPU": false, "CUDA": true, "Meta": true, "Autograd": false},
      "dense": {"CPU": true, "CUDA": false, "Meta": true, "Autograd": false},
      "plain": {"CPU": true, "CUDA": false, "Meta": true, "Autograd": false}}})");
  Promises promises;
  promises.ops["quant"] = promise({"cuda"}, "always", "CUDA kernel only");
  promises.ops["dense"] = promise({"cpu"}, "always", "a CPU op");
  const auto checks = namespace_checks(report, "lib", /*expect_cuda=*/true, "r", &promises);
  auto registration = [&](const std::string& op) {
    for (const auto& c : checks)
      if (c.op == op && c.check == "registration") return c;
    return CheckResult{};
  };
  EXPECT_EQ(registration("quant").status, Status::pass);
  EXPECT_EQ(registration("quant").message, "lib::quant has CUDA, Meta kernels (no CPU kernel, as its library promises: "
                                           "CUDA kernel only)");
  EXPECT_EQ(registration("dense").status, Status::pass);
  EXPECT_EQ(registration("plain").status, Status::fail);  // no promise: a CUDA cell expects CUDA
  EXPECT_EQ(registration("plain").message, "lib::plain: no CUDA kernel");
}

}  // namespace opmatrix
