#include "checks/script/script_declaration.h"

#include <map>
#include <set>

#include "matrix/yaml_tree.h"

namespace opmatrix {

namespace {

// Function-local tables: declarations are read while other files' statics are being made
// (script_step.cpp registers them at static initialisation).
const std::map<std::string, StepWhen>& when_names() {
  static const std::map<std::string, StepWhen> names = {
      {"built", StepWhen::built}, {"own_kernels", StepWhen::own_kernels}, {"built_cuda", StepWhen::built_cuda}};
  return names;
}
const std::map<std::string, CheckPer>& per_names() {
  static const std::map<std::string, CheckPer> names = {
      {"cell", CheckPer::cell}, {"op", CheckPer::op}, {"arch", CheckPer::arch}, {"library", CheckPer::library}};
  return names;
}
const std::map<std::string, Weighs>& weighs_names() {
  static const std::map<std::string, Weighs> names = {{"broken", Weighs::breaks}, {"limits", Weighs::limits}};
  return names;
}

// Reads the fields of one map, each by its own reader; a key no reader knows is an error.
class MapReader {
 public:
  MapReader(const YamlNode& map, Diagnostics& diag) : map_(map), diag_(diag) {}

  const YamlNode* take(const std::string& key, bool required) {
    seen_.insert(key);
    const YamlEntry* e = map_.find(key);
    if (!e && required) diag_.error(map_.pos, "missing `" + key + "`");
    return e ? e->value.get() : nullptr;
  }
  std::string text(const std::string& key, bool required = true) {
    const YamlNode* n = take(key, required);
    if (n && n->kind != YamlNode::Kind::scalar) diag_.error(n->pos, "`" + key + "` must be text");
    return n && n->kind == YamlNode::Kind::scalar ? n->text : "";
  }
  std::vector<std::string> list(const std::string& key) {
    std::vector<std::string> out;
    const YamlNode* n = take(key, false);
    if (n && n->kind != YamlNode::Kind::sequence) diag_.error(n->pos, "`" + key + "` must be a list");
    if (n)
      for (const auto& item : n->items) {
        if (item->kind != YamlNode::Kind::scalar) diag_.error(item->pos, "`" + key + "`: each item must be text");
        out.push_back(item->text);
      }
    return out;
  }
  bool flag(const std::string& key) {
    const YamlNode* n = take(key, false);
    if (n && n->text != "true" && n->text != "false")
      diag_.error(n->pos, "`" + key + "` must be true or false, not '" + n->text + "'");
    return n && n->text == "true";
  }
  double number(const std::string& key) {
    const std::string t = text(key);
    try {
      std::size_t used = 0;
      const double v = std::stod(t, &used);
      if (used == t.size() && v >= 0) return v;
    } catch (const std::exception&) {
    }
    if (!t.empty()) diag_.error(map_.find(key)->value->pos, "`" + key + "` must be a number, not '" + t + "'");
    return 0;
  }
  template <typename T>
  T one_of(const std::string& key, const std::map<std::string, T>& names, T fallback, bool required = true) {
    const YamlNode* n = take(key, required);
    if (!n) return fallback;
    const auto it = names.find(n->text);
    if (it != names.end()) return it->second;
    std::string known;
    for (const auto& [name, value] : names) known += (known.empty() ? "" : ", ") + name;
    diag_.error(n->pos, "`" + key + "`: '" + n->text + "' is not one of " + known);
    return fallback;
  }
  // Every key of the map was read: a misspelt one is not silently ignored.
  void done() {
    for (const auto& e : map_.entries)
      if (!seen_.count(e.key)) diag_.error(e.key_pos, "unknown key `" + e.key + "`");
  }

 private:
  const YamlNode& map_;
  Diagnostics& diag_;
  std::set<std::string> seen_;
};

const YamlNode* map_at(MapReader& parent, const std::string& key, Diagnostics& diag, bool required = true) {
  const YamlNode* n = parent.take(key, required);
  if (n && n->kind != YamlNode::Kind::map) diag.error(n->pos, "`" + key + "` must be a map");
  return n && n->kind == YamlNode::Kind::map ? n : nullptr;
}

StepSpec read_step(const YamlNode& node, Diagnostics& diag) {
  MapReader r(node, diag);
  StepSpec s;
  s.name = r.text("name");
  s.script = r.text("script");
  s.timeout_s = r.number("timeout_s");
  s.when = r.one_of("when", when_names(), StepWhen::built);
  s.does = r.text("does");
  s.in_atlas = r.flag("atlas");
  s.shares_container = r.flag("shares_container");
  r.done();
  return s;
}

ReportCells read_report(MapReader& check, Diagnostics& diag) {
  ReportCells cells;
  const YamlNode* node = map_at(check, "report", diag, false);
  if (!node) return cells;
  MapReader r(*node, diag);
  cells.label = r.text("label");
  cells.caption = r.text("caption");
  cells.subtest_labels = r.list("subtest_labels");
  cells.torchvision_caption = r.text("torchvision_caption", false);
  r.done();
  return cells;
}

CheckSpec read_check(const YamlNode& node, const std::string& step, Diagnostics& diag) {
  MapReader r(node, diag);
  CheckSpec c;
  c.name = r.text("name");
  c.steps = {step};
  c.judge = "script_checks";
  c.per = r.one_of("per", per_names(), CheckPer::cell);
  c.catches = r.text("catches");
  c.user_error = r.text("user_error");
  c.weighs = r.one_of("weighs", weighs_names(), Weighs::breaks, false);
  c.subtests = r.list("subtests");
  c.torchvision_ops = r.flag("torchvision_ops");
  c.unexecuted = r.text("unexecuted", false);
  c.infrastructure_kinds = r.list("infrastructure_kinds");
  c.wrong_result_kinds = r.list("wrong_result_kinds");
  c.fake_kernel_subtests = r.list("fake_kernel_subtests");
  for (const auto& column : r.list("columns")) {
    if (column == "project") c.project_column = true;
    else if (column == "behaviour") c.behaviour_column = true;
    else if (column == "arch") c.arch_column = true;
    else diag.error(node.find("columns")->value->pos, "`columns`: '" + column + "' is not one of project, behaviour, arch");
  }
  c.report = read_report(r, diag);
  r.done();
  return c;
}

}  // namespace

std::optional<ScriptCheckDeclaration> parse_script_check(const std::string& text, Diagnostics& diag) {
  YamlNodePtr root = parse_yaml(text, diag);
  if (!root) return std::nullopt;
  if (root->kind != YamlNode::Kind::map) {
    diag.error(root->pos, "a script check's declaration is a map (order, step, check)");
    return std::nullopt;
  }
  MapReader r(*root, diag);
  ScriptCheckDeclaration d;
  d.order = r.number("order");
  const YamlNode* step = map_at(r, "step", diag);
  const YamlNode* check = map_at(r, "check", diag);
  if (step) d.declared.step = read_step(*step, diag);
  if (check) d.declared.check = read_check(*check, d.declared.step.name, diag);
  r.done();
  if (diag.has_errors()) return std::nullopt;
  return d;
}

}  // namespace opmatrix
