// One dispatcher op as `opmatrix init` finds it in a library's sources, and what a source file
// holds of them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace opmatrix {

struct OpRegistration {
  std::string ns;      // the dispatcher namespace: torch.ops.<ns>.<name>
  std::string name;    // without its overload name
  std::string schema;  // "name(Tensor a) -> Tensor", whitespace collapsed; "" where the source
                       // gives none (custom_op and m.def("name", fn) infer it)
  int line = 0;
};

struct SourceRegistrations {
  std::vector<std::string> namespaces;  // every namespace a library block or op names, in order
  std::vector<OpRegistration> ops;
  int unread_defs = 0;           // def(...) calls whose schema is not a string literal
  bool pybind11_module = false;  // PYBIND11_MODULE(...)
};

// "ns::name.overload(Tensor x) -> Tensor", "name(...)", or just "name": the op it defines.
// The namespace written in the schema wins over `ns`; nullopt when there is no namespace or
// the names are not identifiers.
std::optional<OpRegistration> op_from_schema(const std::string& schema, const std::string& ns, int line);

bool is_op_identifier(const std::string& s);  // what the matrix accepts for a namespace / op

}  // namespace opmatrix
