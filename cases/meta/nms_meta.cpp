// Meta view of opmatrix::nms. Its output length depends on the boxes' values, which meta tensors
// do not carry, so no C++ kernel can give it: the true fake kernel is Python's
// (kernels/python/opmatrix_ops.py, checked by opcheck, compile, export and fake-device in the
// cell). What C++ must guarantee, checked here: a call on meta tensors never returns a made-up
// size; where the torch can say so, the schema names the Python module holding the fake kernel;
// where it cannot, the refusal says why in words; and bad arguments are rejected as on CPU.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <string>

#include "common/check.h"
#include "common/detection_inputs.h"
#include "common/detection_ops.h"
#include "common/dispatch.h"
#include "common/library.h"
#include "common/testbed.h"
#include "opmatrix_torch_facts.h"  // generated: what this torch's dispatcher offers

namespace opmatrix::cases {
namespace {

class NmsMeta : public ::testing::TestWithParam<at::ScalarType> {};

// The module kernels/python/opmatrix_ops.py is installed as (OPMATRIX_FAKE_MODULE).
constexpr const char* kFakeModule = "opmatrix_ops";

// Whether the loaded library kept a C++ Meta kernel for nms: it does where it could not name the
// Python module (torch < 2.2, a stable-ABI target < 2.13), and that kernel must refuse.
bool hasCppMetaKernel() {
  const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("opmatrix::nms", "");
  return kernelServing(op, c10::DispatchKey::Meta).has_value();
}

// The message a call on meta tensors fails with; "" when it returned (that is the bug).
std::string metaCallError(int64_t n, at::ScalarType dtype) {
  const auto in = randomBoxes(n, 3, dtype);
  try {
    const at::Tensor out = callNms(toMeta(in.boxes), toMeta(in.scores), 0.5);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

TEST_P(NmsMeta, NeverGivesAMadeUpSize) {
  OPMATRIX_CHECK("nms", "meta");
  OPMATRIX_REQUIRE_OPS();
  for (int64_t n : {0, 1, 37}) {
    const std::string error = metaCallError(n, GetParam());
    EXPECT_FALSE(error.empty()) << "nms on " << n << " meta boxes returned a tensor: its length can only be a "
                                << "guess (the kept boxes depend on the values)";
    const char* says = hasCppMetaKernel() ? "depends on the boxes' values" : "Meta";
    EXPECT_NE(error.find(says), std::string::npos) << error;
  }
}

TEST_P(NmsMeta, SchemaNamesItsPythonFakeModule) {
  OPMATRIX_CHECK("nms", "meta");
  OPMATRIX_REQUIRE_OPS();
  if (hasCppMetaKernel()) OPMATRIX_SKIP("this build keeps a refusing C++ Meta kernel: it cannot name a Python module");
  if (!opmatrix::cases::canAskPythonFakeModule())
    OPMATRIX_SKIP("this torch's dispatcher cannot be asked for an op's Python module (no Dispatcher::getPyStub)");
  const auto module = opmatrix::cases::pythonFakeModule(c10::OperatorName("opmatrix::nms", ""));
  ASSERT_TRUE(module.has_value()) << "opmatrix::nms declares no Python module for its fake kernel: torch refuses "
                                  << "a Python fake kernel for a C++ op without one";
  EXPECT_EQ(*module, kFakeModule);
}

TEST_P(NmsMeta, RejectsWhatTheCpuKernelRejects) {
  OPMATRIX_CHECK("nms", "meta");
  OPMATRIX_REQUIRE_OPS();
  const auto t = GetParam();
  for (const auto& [boxes, scores] : {std::pair{at::zeros({5, 3}, t), at::zeros({5}, t)},
                                      std::pair{at::zeros({5, 4}, t), at::zeros({6}, t)}}) {
    EXPECT_THROW(callNms(boxes, scores, 0.5), c10::Error);
    EXPECT_THROW(callNms(toMeta(boxes), toMeta(scores), 0.5), c10::Error);
  }
}

INSTANTIATE_TEST_SUITE_P(, NmsMeta, cpuDtypes(), DtypeName());

}  // namespace
}  // namespace opmatrix::cases
