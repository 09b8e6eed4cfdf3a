#include "common/dispatch.h"

#include "opmatrix_torch_facts.h"  // generated: what this torch's dispatcher offers

#include <vector>

namespace opmatrix::cases {

std::optional<std::string> kernelServing(const c10::OperatorHandle& op, c10::DispatchKey key) {
  using K = c10::DispatchKey;
  std::vector<K> candidates{key};
  if (key == K::Autograd) {
    candidates.push_back(K::AutogradCPU);
    candidates.push_back(K::AutogradCUDA);
  } else {
    candidates.push_back(K::CompositeExplicitAutograd);
    // Every call reaches a BackendSelect kernel (the key is always in the dispatch set), whatever
    // its tensors' backend: torchcodec registers its ops there, most of them taking no tensor.
    candidates.push_back(K::BackendSelect);
  }
  candidates.push_back(K::CompositeImplicitAutograd);
  for (K candidate : candidates) {
    if (op.hasKernelForDispatchKey(candidate)) return std::string(c10::toString(candidate));
  }
  return std::nullopt;
}

std::string dispatchTable(const c10::OperatorHandle& op) { return op.dumpComputedTable(); }

std::optional<std::string> pythonFakeModule(const c10::OperatorName& name) {
#if defined(OPMATRIX_TORCH_HAS_GET_PYSTUB)
  const auto stub = c10::Dispatcher::singleton().getPyStub(name);
#elif defined(OPMATRIX_TORCH_HAS_GET_ABSTRACT_IMPL_PYSTUB)
  const auto stub = c10::Dispatcher::singleton().getAbstractImplPyStub(name);
#else
  (void)name;
  const std::optional<std::pair<const char*, const char*>> stub;
#endif
  if (!stub.has_value()) return std::nullopt;
  return std::string(stub->first);
}

bool canAskPythonFakeModule() {
#if defined(OPMATRIX_TORCH_HAS_GET_PYSTUB) || defined(OPMATRIX_TORCH_HAS_GET_ABSTRACT_IMPL_PYSTUB)
  return true;
#else
  return false;
#endif
}

}  // namespace opmatrix::cases
