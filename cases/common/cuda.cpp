#include "common/cuda.h"

#include <torch/cuda.h>

#include <cstdlib>
#include <cstring>

#include "common/dispatch.h"

namespace opmatrix::cases {

bool expectCuda() {
  const char* env = std::getenv("OPMATRIX_EXPECT_CUDA");
  return env != nullptr && std::strcmp(env, "1") == 0;
}

bool torchHasCuda() {
  auto empty = c10::Dispatcher::singleton().findOp(c10::OperatorName("aten::empty", "memory_format"));
  return empty.has_value() && empty->hasKernelForDispatchKey(c10::DispatchKey::CUDA);
}

int visibleGpus() { return torchHasCuda() ? static_cast<int>(torch::cuda::device_count()) : 0; }

CudaDecision cudaDecision(const std::string& qualified_op) {
  const bool promised = expectCuda();
  const auto absent = [&](const std::string& why) {
    return promised ? CudaDecision{CudaDecision::kFail,
                                   "the cell promises CUDA (OPMATRIX_EXPECT_CUDA=1) but " + why}
                    : CudaDecision{CudaDecision::kSkip, why};
  };
  if (!torchHasCuda()) return absent("torch built without CUDA");
  auto op = c10::Dispatcher::singleton().findOp(c10::OperatorName(qualified_op, ""));
  if (!op.has_value()) return {CudaDecision::kFail, "no schema for " + qualified_op};
  if (!op->hasKernelForDispatchKey(c10::DispatchKey::CUDA)) {
    return absent("library built without CUDA kernels: Could not run '" + qualified_op +
                  "' with arguments from the 'CUDA' backend");
  }
  if (visibleGpus() == 0) return {CudaDecision::kSkip, "no GPU visible"};
  return {CudaDecision::kRun, ""};
}

void expectCudaPromiseKept(const std::vector<std::string>& qualified_ops) {
  if (!expectCuda()) OPMATRIX_SKIP("the cell does not promise CUDA (OPMATRIX_EXPECT_CUDA!=1)");
  ASSERT_TRUE(torchHasCuda())
      << "the cell promises CUDA but torch was built without CUDA (AssertionError: Torch not "
         "compiled with CUDA enabled)";
  for (const std::string& name : qualified_ops) {
    const auto op = c10::Dispatcher::singleton().findOp(c10::OperatorName(name, ""));
    ASSERT_TRUE(op.has_value()) << name;
    EXPECT_TRUE(op->hasKernelForDispatchKey(c10::DispatchKey::CUDA))
        << "the cell promises CUDA but the library was built without CUDA kernels: Could not run '"
        << name << "' with arguments from the 'CUDA' backend";
  }
}

}  // namespace opmatrix::cases
