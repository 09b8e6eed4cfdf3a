#include "init/init_samples.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace opmatrix {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n") - b + 1);
}

// The arguments of "name(Tensor a, int[2] k=[1, 1], *, bool f=False) -> Tensor", split at
// top-level commas; nullopt-like empty result with ok=false when there is no argument list.
std::vector<std::string> schema_arguments(const std::string& schema, bool& ok) {
  std::vector<std::string> out;
  const auto open = schema.find('(');
  ok = open != std::string::npos;
  if (!ok) return out;
  int depth = 0;
  std::string cur;
  for (std::size_t i = open + 1; i < schema.size(); ++i) {
    const char c = schema[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ')' && depth-- == 0) {
      if (!trim(cur).empty()) out.push_back(trim(cur));
      return out;
    }
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  ok = false;  // no closing parenthesis
  return out;
}

struct Call {
  std::string qualified;
  std::vector<std::string> args, kwargs;
  bool todo = false;
};

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace

std::string sample_argument(const std::string& type, bool& todo) {
  if (type.empty()) return "";
  if (type.back() == '?') return "None";
  if (starts_with(type, "Tensor[]") || starts_with(type, "Tensor?[]")) {
    todo = true;
    return "[torch.rand(4, 4, device=device)]";
  }
  if (starts_with(type, "Tensor")) {
    todo = true;
    return "torch.rand(4, 4, device=device)";
  }
  if (starts_with(type, "int[") || starts_with(type, "SymInt[")) return "[1, 1]";
  if (starts_with(type, "float[")) return "[1.0, 1.0]";
  if (starts_with(type, "bool[")) return "[False, False]";
  if (type == "int" || type == "SymInt" || type == "Scalar") return "1";
  if (type == "float") return "0.5";
  if (type == "bool") return "False";
  if (type == "str") return "\"\"";
  if (type == "ScalarType") return "torch.float32";
  todo = true;
  return "None";
}

std::string render_init_samples(const LibrarySurvey& survey) {
  const NamespaceOps* ns = survey.main_namespace();
  if (!ns || ns->ops.empty()) return "";
  std::vector<Call> calls;
  std::vector<std::string> unread;
  for (const auto& op : ns->ops) {
    std::string schema;
    for (const auto& s : ns->schemas)
      if (s.rfind(op + "(", 0) == 0 || s.rfind(op + ".", 0) == 0) schema = s.substr(0, s.find("->"));
    bool ok = false;
    const std::vector<std::string> arguments = schema_arguments(schema, ok);
    if (!ok) {
      unread.push_back(op);
      continue;
    }
    Call call{ns->ns + "::" + op, {}, {}, false};
    bool keyword = false;
    for (const auto& a : arguments) {
      if (a == "*") {
        keyword = true;
        continue;
      }
      if (a.find('=') != std::string::npos) continue;  // its default is a valid sample already
      const auto space = a.find_last_of(' ');
      const std::string type = space == std::string::npos ? a : trim(a.substr(0, space));
      const std::string name = space == std::string::npos ? "" : a.substr(space + 1);
      const std::string value = sample_argument(type, call.todo);
      if (keyword) call.kwargs.push_back(fmt::format("\"{}\": {}", name, value));
      else call.args.push_back(value);
    }
    calls.push_back(call);
  }
  std::string out = fmt::format(
      "\"\"\"Sample inputs of {}'s ops for opmatrix's behaviour checks (opcheck, compile, export,\n"
      "fake-device): samples(device) returns (op, args, kwargs) triples, one call each; each op may\n"
      "have several. Written by `opmatrix init` from the ops' schemas: the tensors are placeholders.\n"
      "Give each the shape, dtype and values the op needs (an op that raises on its sample is\n"
      "reported as a broken sample, not as a finding), and requires_grad=True on inputs of ops\n"
      "with a backward.\"\"\"\n"
      "import torch\n\n\n"
      "def samples(device):\n"
      "    return [\n",
      ns->ns);
  for (const auto& c : calls) {
    std::string args = fmt::format("{}", fmt::join(c.args, ", "));
    if (c.args.size() == 1) args += ",";
    out += fmt::format("        (\"{}\", ({}), {{{}}}),{}\n", c.qualified, args, fmt::join(c.kwargs, ", "),
                       c.todo ? "  # TODO: the shapes this op needs" : "");
  }
  for (const auto& op : unread)
    out += fmt::format("        # (\"{}::{}\", (...), {{}}),  # init could not read its schema: add its call\n",
                       ns->ns, op);
  out += "    ]\n";
  return out;
}

}  // namespace opmatrix
