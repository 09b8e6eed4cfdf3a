// Generic registration check, for any op library given its namespace (ours, torchvision's):
// the library loads (RTLD_NOW), and every op has a schema and a kernel for each dispatch
// key the cell promises: CPU, Meta, Autograd, and CUDA when OPMATRIX_EXPECT_CUDA=1.
//   OPMATRIX_REG_NAMESPACE  namespace to inspect                 (default opmatrix)
//   OPMATRIX_REG_LIBRARY    library to dlopen first               (default libopmatrix_ops.so)
//   OPMATRIX_REG_OPS        comma-separated op names              (default: all our ops)
//   OPMATRIX_EXPECT_CUDA    1: a missing CUDA kernel fails         (default 0)
// Test names: OpRegistration.<Check>/<op>; every test records `op` and `check`.
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/cuda.h"
#include "common/dispatch.h"
#include "common/library.h"
#include "opmatrix_torch_facts.h"  // generated: what this torch's dispatcher offers

namespace {

using opmatrix::cases::kernelServing;

std::string envOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

std::string regNamespace() { return envOr("OPMATRIX_REG_NAMESPACE", "opmatrix"); }
std::string regLibrary() { return envOr("OPMATRIX_REG_LIBRARY", opmatrix::cases::opsLibraryPath()); }

std::vector<std::string> regOps() {
  std::stringstream list(envOr("OPMATRIX_REG_OPS",
                               "nms,roi_align,_roi_align_backward,deform_conv2d,"
                               "_deform_conv2d_backward,ms_deform_attn,_ms_deform_attn_backward"));
  std::vector<std::string> ops;
  for (std::string op; std::getline(list, op, ',');) {
    if (!op.empty()) ops.push_back(op);
  }
  return ops;
}

const std::string& libraryError() {
  static const std::string error = opmatrix::cases::loadLibrary(regLibrary());
  return error;
}

class OpRegistration : public ::testing::TestWithParam<std::string> {
 protected:
  std::string qualified() const { return regNamespace() + "::" + GetParam(); }

  // Loads the library and finds the op; a failed ASSERT here ends the calling test.
  void findOp(c10::optional<c10::OperatorHandle>& op) {
    ASSERT_TRUE(libraryError().empty()) << "cannot load " << regLibrary() << ": " << libraryError();
    op = c10::Dispatcher::singleton().findOp(c10::OperatorName(qualified(), ""));
    ASSERT_TRUE(op.has_value()) << "no schema for " << qualified() << " after loading "
                                << regLibrary() << " (never defined, or the library's static "
                                << "registration did not run)";
  }

  void expectKernel(c10::DispatchKey key, const char* user_error_hint) {
    c10::optional<c10::OperatorHandle> op;
    ASSERT_NO_FATAL_FAILURE(findOp(op));
    EXPECT_TRUE(kernelServing(*op, key).has_value())
        << qualified() << " has no kernel for dispatch key " << c10::toString(key)
        << user_error_hint << "\nDispatch table:\n" << opmatrix::cases::dispatchTable(*op);
  }
};

TEST_P(OpRegistration, Load) {
  OPMATRIX_CHECK(GetParam(), "load");
  ASSERT_TRUE(libraryError().empty()) << "dlopen(" << regLibrary() << ", RTLD_NOW): " << libraryError();
}

TEST_P(OpRegistration, Schema) {
  OPMATRIX_CHECK(GetParam(), "registration");
  c10::optional<c10::OperatorHandle> op;
  ASSERT_NO_FATAL_FAILURE(findOp(op));
  EXPECT_EQ(op->schema().name(), qualified());
}

TEST_P(OpRegistration, CpuKernel) {
  OPMATRIX_CHECK(GetParam(), "registration");
  expectKernel(c10::DispatchKey::CPU, "");
}

TEST_P(OpRegistration, MetaKernel) {
  OPMATRIX_CHECK(GetParam(), "registration");
  // An op whose fake kernel is Python's (a data-dependent size: nms, ours and torchvision's)
  // has no C++ Meta kernel by design; its schema names the module that registers the fake.
  // That module's kernel is judged where Python runs (opcheck, compile, export, fake-device).
  // (torch 2.2's dispatcher names it too, as getAbstractImplPyStub: a false red there before.)
  c10::optional<c10::OperatorHandle> op;
  ASSERT_NO_FATAL_FAILURE(findOp(op));
  const auto module = opmatrix::cases::pythonFakeModule(op->operator_name());
  if (module && !kernelServing(*op, c10::DispatchKey::Meta).has_value()) {
    RecordProperty("note", "fake kernel in Python module " + *module);
    return;
  }
  expectKernel(c10::DispatchKey::Meta,
               " (FakeTensor/torch.compile will fail: Unhandled FakeTensor Device Propagation / "
               "no fake impl)");
}

TEST_P(OpRegistration, AutogradKernel) {
  OPMATRIX_CHECK(GetParam(), "registration");
  expectKernel(c10::DispatchKey::Autograd,
               " (neither Autograd nor AutogradCPU/AutogradCUDA nor CompositeImplicitAutograd)");
}

TEST_P(OpRegistration, CudaKernel) {
  OPMATRIX_CHECK(GetParam(), "registration");
  c10::optional<c10::OperatorHandle> op;
  ASSERT_NO_FATAL_FAILURE(findOp(op));
  if (kernelServing(*op, c10::DispatchKey::CUDA).has_value()) return;
  const std::string message = qualified() + " has no kernel for dispatch key CUDA; users get: "
      "NotImplementedError: Could not run '" + qualified() +
      "' with arguments from the 'CUDA' backend";
  if (!opmatrix::cases::expectCuda()) {
    OPMATRIX_SKIP("the cell does not promise CUDA (OPMATRIX_EXPECT_CUDA!=1); " + message);
  }
  FAIL() << message << "\nDispatch table:\n" << opmatrix::cases::dispatchTable(*op);
}

std::string opTestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (char c : info.param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(, OpRegistration, ::testing::ValuesIn(regOps()), opTestName);

}  // namespace
