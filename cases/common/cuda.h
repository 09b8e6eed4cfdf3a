// What the cell can do with CUDA, and what it promised (OPMATRIX_EXPECT_CUDA), so that
// CUDA tests skip with a reason where CUDA is legitimately absent and fail where the cell
// promised it. Never touches the CUDA runtime in a CPU-only torch.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/check.h"

namespace opmatrix::cases {

// The cell promises CUDA: OPMATRIX_EXPECT_CUDA=1.
bool expectCuda();

// torch has CUDA kernels loaded (aten::empty has a CUDA kernel): false for a CPU-only torch.
bool torchHasCuda();

// GPUs the CUDA runtime reports; 0 in a CPU-only torch or without a GPU/driver.
int visibleGpus();

// The decision for a test that needs `qualified_op` ("opmatrix::nms") on a GPU.
struct CudaDecision {
  enum Action { kRun, kSkip, kFail } action;
  std::string reason;
};
CudaDecision cudaDecision(const std::string& qualified_op);

// The body of a device family's CellCudaPromise test, after OPMATRIX_REQUIRE_OPS(): skips
// (reason recorded) unless the cell promises CUDA; then torch, and each of `qualified_ops`,
// must have CUDA kernels. It skips from inside a function, so nothing may follow it.
void expectCudaPromiseKept(const std::vector<std::string>& qualified_ops);

}  // namespace opmatrix::cases

// Skips (reason recorded) or fails (cell promised CUDA) unless `op` can run on a GPU here.
#define OPMATRIX_REQUIRE_CUDA(qualified_op)                                      \
  do {                                                                           \
    const auto opmatrix_cuda_ = ::opmatrix::cases::cudaDecision(qualified_op);   \
    if (opmatrix_cuda_.action == ::opmatrix::cases::CudaDecision::kFail) {       \
      FAIL() << opmatrix_cuda_.reason;                                           \
    } else if (opmatrix_cuda_.action == ::opmatrix::cases::CudaDecision::kSkip) { \
      OPMATRIX_SKIP(opmatrix_cuda_.reason);                                      \
    }                                                                            \
  } while (0)
