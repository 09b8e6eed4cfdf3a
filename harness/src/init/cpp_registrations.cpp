#include "init/cpp_registrations.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "init/source_lexer.h"

namespace opmatrix {

namespace {

const std::set<std::string> kLibraryBlocks = {"TORCH_LIBRARY", "TORCH_LIBRARY_FRAGMENT", "STABLE_TORCH_LIBRARY",
                                              "STABLE_TORCH_LIBRARY_FRAGMENT"};

void note_namespace(SourceRegistrations& out, const std::string& ns) {
  if (std::find(out.namespaces.begin(), out.namespaces.end(), ns) == out.namespaces.end())
    out.namespaces.push_back(ns);
}

void add_op(SourceRegistrations& out, const std::optional<OpRegistration>& op) {
  if (!op) return;
  note_namespace(out, op->ns);
  out.ops.push_back(*op);
}

// The schema argument of a def(, just passed: a literal, or one inside a wrapper such as
// TORCH_SELECTIVE_SCHEMA("...") or torch::schema("...", aliasing).
bool schema_argument(CodeCursor& cur, std::string& schema) {
  for (int wrappers = 0; wrappers < 3; ++wrappers) {
    if (cur.string_run(schema)) return true;
    if (cur.qualified_name("::").empty() || !cur.take('(')) return false;
  }
  return false;
}

// TORCH_LIBRARY(ns, m) { ... m.def("...") ... }: only defs on the block's own Library count,
// so a PYBIND11_MODULE's m.def("fn", &fn) elsewhere in the file is no op.
void read_library_block(const LexedSource& src, std::size_t after_macro, SourceRegistrations& out) {
  CodeCursor cur(src, after_macro);
  if (!cur.take('(')) return;
  const std::string ns = cur.identifier();
  if (ns.empty() || !cur.take(',')) return;
  const std::string lib = cur.identifier();
  // Requiring the body also skips the macro's own #define in a vendored torch header.
  if (lib.empty() || !cur.take(')') || !cur.take('{')) return;
  note_namespace(out, ns);
  const std::size_t open = cur.pos() - 1;
  const std::size_t close = matching_close(src.code, open);
  const std::string body = src.code.substr(open, close - open);
  for_each_identifier(body, [&](std::size_t at, const std::string& word) {
    if (word != lib) return;
    CodeCursor call(src, open + at + word.size());
    if (!call.take('.') || call.identifier() != "def" || !call.take('(')) return;
    std::string schema;
    if (!schema_argument(call, schema)) {
      ++out.unread_defs;
      return;
    }
    add_op(out, op_from_schema(schema, ns, line_of(src.code, open + at)));
  });
}

// The end of the statement starting at `from`: its ';' outside brackets, or the bracket that
// closes what it sits in.
std::size_t statement_end(const std::string& code, std::size_t from) {
  int depth = 0;
  for (std::size_t i = from; i < code.size(); ++i) {
    const char c = code[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && --depth < 0) return i;
    else if (c == ';' && depth == 0) return i;
  }
  return code.size();
}

bool follows_dot(const std::string& code, std::size_t at) {
  while (at > 0 && std::isspace(static_cast<unsigned char>(code[at - 1]))) --at;
  return at > 0 && code[at - 1] == '.';
}

// torch::RegisterOperators().op("ns::name", &fn).op(...), or .op(options().schema("ns::...")):
// the legacy API always qualifies the name, which gives the namespace.
std::size_t read_register_operators(const LexedSource& src, std::size_t at, SourceRegistrations& out) {
  const std::size_t end = statement_end(src.code, at);
  const std::string stmt = src.code.substr(at, end - at);
  for_each_identifier(stmt, [&](std::size_t pos, const std::string& word) {
    if ((word != "op" && word != "schema") || !follows_dot(src.code, at + pos)) return;
    CodeCursor call(src, at + pos + word.size());
    std::string schema;
    if (!call.take('(') || !call.string_run(schema)) return;
    add_op(out, op_from_schema(schema, "", line_of(src.code, at + pos)));
  });
  return end;
}

}  // namespace

SourceRegistrations find_cpp_registrations(const std::string& text) {
  const LexedSource src = lex_cpp(text);
  SourceRegistrations out;
  std::size_t register_until = 0;  // options() inside a chain names RegisterOperators again
  for_each_identifier(src.code, [&](std::size_t at, const std::string& word) {
    if (kLibraryBlocks.count(word)) {
      read_library_block(src, at + word.size(), out);
    } else if (word == "RegisterOperators" && at >= register_until) {
      register_until = read_register_operators(src, at, out);
    } else if (word == "PYBIND11_MODULE") {
      CodeCursor cur(src, at + word.size());
      if (cur.take('(')) out.pybind11_module = true;
    }
  });
  return out;
}

}  // namespace opmatrix
