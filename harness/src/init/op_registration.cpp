#include "init/op_registration.h"

#include <cctype>
#include <regex>

namespace opmatrix {

namespace {

std::string collapse_whitespace(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace

bool is_op_identifier(const std::string& s) {
  static const std::regex re("^[A-Za-z_][A-Za-z0-9_]{0,63}$");
  return std::regex_match(s, re);
}

std::optional<OpRegistration> op_from_schema(const std::string& schema, const std::string& ns, int line) {
  std::string s = collapse_whitespace(schema);
  const std::size_t paren = s.find('(');
  std::string head = collapse_whitespace(s.substr(0, paren));
  OpRegistration op;
  op.ns = ns;
  op.line = line;
  if (const std::size_t q = head.find("::"); q != std::string::npos) {
    op.ns = head.substr(0, q);
    head = head.substr(q + 2);
  }
  op.name = head.substr(0, head.find('.'));
  if (!is_op_identifier(op.ns) || !is_op_identifier(op.name)) return std::nullopt;
  // Shown under its namespace, so without it.
  if (paren != std::string::npos) op.schema = head + s.substr(paren);
  return op;
}

}  // namespace opmatrix
