// The dispatcher handle behind each C++ entry point (ops/<op>.h): looked up by schema name
// and typed as the entry point itself, so a call reaches whichever backend kernel applies.
// ATen only: the entry points are ATen code.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

namespace opmatrix {

// Fn is the entry point's type (decltype(opmatrix::nms)); `name` its schema's qualified
// name, without overload. Callers keep the result in a function-local static: the lookup
// is a hash-map search they pay once.
template <typename Fn>
c10::TypedOperatorHandle<Fn> typed_op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Fn>();
}

}  // namespace opmatrix
