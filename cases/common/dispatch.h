// The dispatcher, as tests see it: ops are called by name (the way Python and C++ users
// reach them after loading the library), and registration is inspected per dispatch key.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>
#include <string>

namespace opmatrix::cases {

// findSchemaOrThrow("ns::op", "").typed<Sig>(), e.g.
//   auto nms = typedOp<at::Tensor(const at::Tensor&, const at::Tensor&, double)>("opmatrix::nms");
template <class Signature>
c10::TypedOperatorHandle<Signature> typedOp(const char* qualified_name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(qualified_name, "").typed<Signature>();
}

// The registration key that serves `key` for the op ("CPU", "CompositeExplicitAutograd",
// …), or nullopt when nothing does. Alias keys count the way the dispatcher resolves them:
// CompositeImplicitAutograd serves every key, CompositeExplicitAutograd serves backends,
// Autograd serves AutogradCPU/AutogradCUDA.
std::optional<std::string> kernelServing(const c10::OperatorHandle& op, c10::DispatchKey key);

// The Python module an op's schema names for its fake kernel (Library::set_python_module, or
// impl_abstract_pystub in torch 2.2 and 2.3), as this torch's dispatcher says it: getPyStub, or
// getAbstractImplPyStub before it was renamed. nullopt where none is named.
std::optional<std::string> pythonFakeModule(const c10::OperatorName& name);
// Whether this torch's dispatcher can be asked that at all (torch 2.2 and newer).
bool canAskPythonFakeModule();

// The dispatcher's table for an op (dumpComputedTable()), for failure messages.
std::string dispatchTable(const c10::OperatorHandle& op);

}  // namespace opmatrix::cases
