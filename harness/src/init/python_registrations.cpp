#include "init/python_registrations.h"

#include <algorithm>

#include "init/source_lexer.h"

namespace opmatrix {

SourceRegistrations find_python_registrations(const std::string& text) {
  const LexedSource src = lex_python(text);
  SourceRegistrations out;
  for_each_identifier(src.code, [&](std::size_t at, const std::string& word) {
    if (word != "define" && word != "custom_op" && word != "triton_op") return;
    CodeCursor call(src, at + word.size());
    std::string qualname;
    // Only a literal "ns::name" counts: it is what tells these calls from any other define().
    if (!call.take('(') || !call.string_run(qualname) || qualname.find("::") == std::string::npos) return;
    std::string schema = qualname;
    if (word == "define" && qualname.find('(') == std::string::npos && call.take(',')) {
      std::string signature;
      if (call.string_run(signature)) schema += signature;
    }
    auto op = op_from_schema(schema, "", line_of(src.code, at));
    if (!op) return;
    if (word != "define") op->schema.clear();  // custom_op infers it from the type hints
    if (std::find(out.namespaces.begin(), out.namespaces.end(), op->ns) == out.namespaces.end())
      out.namespaces.push_back(op->ns);
    out.ops.push_back(*op);
  });
  return out;
}

}  // namespace opmatrix
