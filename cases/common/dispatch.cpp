#include "common/dispatch.h"

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
  }
  candidates.push_back(K::CompositeImplicitAutograd);
  for (K candidate : candidates) {
    if (op.hasKernelForDispatchKey(candidate)) return std::string(c10::toString(candidate));
  }
  return std::nullopt;
}

std::string dispatchTable(const c10::OperatorHandle& op) { return op.dumpComputedTable(); }

}  // namespace opmatrix::cases
