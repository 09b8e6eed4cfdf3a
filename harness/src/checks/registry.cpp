#include "checks/registry.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/escape.h"


namespace opmatrix {

namespace {

// Each kind of entry with the order its module gave it, kept sorted as modules register.
template <typename T>
struct Ordered {
  std::vector<double> orders;
  std::vector<T> items;

  void add(double order, T item) {
    const auto at = std::upper_bound(orders.begin(), orders.end(), order) - orders.begin();
    orders.insert(orders.begin() + at, order);
    items.insert(items.begin() + at, std::move(item));
  }
};

// One list per kind of entry, a function-local static: a module's registrar may run before
// this file's own statics exist.
template <typename T>
Ordered<T>& entries() {
  static Ordered<T> list;
  return list;
}

}  // namespace

void register_step(double order, StepSpec step) { entries<StepSpec>().add(order, std::move(step)); }

void register_check(double order, CheckSpec check) { entries<CheckSpec>().add(order, std::move(check)); }

void register_cell_rule(double order, CellRule rule) { entries<CellRule>().add(order, std::move(rule)); }

const std::vector<CellRule>& cell_rule_registry() { return entries<CellRule>().items; }


void add_script_check(double order, ScriptCheck sc) {
  entries<ScriptCheck>().add(order, sc);
  register_step(order, std::move(sc.step));
  register_check(order, std::move(sc.check));
}

const std::vector<ScriptCheck>& script_check_registry() { return entries<ScriptCheck>().items; }

std::string registration_rule() {
  return "a key counts as served when a kernel is registered for the key itself; for Autograd, else for "
         "AutogradCPU or AutogradCUDA; for CPU, CUDA and Meta, else for CompositeExplicitAutograd, then for "
         "BackendSelect (every call reaches it, whatever its tensors); and for every "
         "key, else for CompositeImplicitAutograd. The results name the key that serves it when it is not the key "
         "itself.";
}

const std::vector<StepSpec>& step_registry() { return entries<StepSpec>().items; }

const std::vector<CheckSpec>& check_registry() { return entries<CheckSpec>().items; }


const StepSpec* find_step(const std::string& name) {
  for (const auto& s : step_registry())
    if (s.name == name) return &s;
  return nullptr;
}

const CheckSpec* find_check(const std::string& name) {
  for (const auto& c : check_registry())
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<std::string> step_names() {
  std::vector<std::string> v;
  for (const auto& s : step_registry()) v.push_back(s.name);
  return v;
}

std::vector<std::string> check_names() {
  std::vector<std::string> v;
  for (const auto& c : check_registry()) v.push_back(c.name);
  return v;
}

const std::vector<std::string>& step_infrastructure_kinds() {
  static const std::vector<std::string> kinds = {"killed", "timeout", "disk_full"};
  return kinds;
}

bool is_infrastructure(const std::string& check, const std::string& kind) {
  const auto& common = step_infrastructure_kinds();
  if (std::find(common.begin(), common.end(), kind) != common.end()) return true;
  const CheckSpec* spec = find_check(check);
  return spec && std::find(spec->infrastructure_kinds.begin(), spec->infrastructure_kinds.end(), kind) !=
                     spec->infrastructure_kinds.end();
}

namespace {

// The names of the checks (registry order) for which `holds` is true.
template <typename Predicate>
std::vector<std::string> checks_where(Predicate holds) {
  std::vector<std::string> v;
  for (const auto& c : check_registry())
    if (holds(c)) v.push_back(c.name);
  return v;
}

}  // namespace

std::vector<std::string> project_columns() {
  return checks_where([](const CheckSpec& c) { return c.project_column; });
}

std::vector<std::string> checks_with_subtests() {
  return checks_where([](const CheckSpec& c) { return !c.subtests.empty(); });
}

std::vector<std::string> behaviour_columns() {
  return checks_where([](const CheckSpec& c) { return c.behaviour_column; });
}

std::vector<std::string> arch_columns() {
  return checks_where([](const CheckSpec& c) { return c.arch_column; });
}

const char* to_string(StepWhen when) {
  switch (when) {
    case StepWhen::every_cell: return "every cell";
    case StepWhen::cuda_cell: return "CUDA cells";
    case StepWhen::built: return "after a build";
    case StepWhen::built_cuda: return "CUDA cells, after a build";
    case StepWhen::own_kernels: return "kernels/ cells, after a build";
    case StepWhen::project_smoke: return "project cells with smoke, after a build";
    case StepWhen::project_tests: return "project cells with tests, after a build";
    case StepWhen::project: return "project cells";
    case StepWhen::pypi_project: return "projects from PyPI (pypi:, wheel:)";
    case StepWhen::atlas_pair: return "atlas pairs";
  }
  return "?";
}

const char* to_string(Weighs w) {
  return w == Weighs::breaks ? "broken" : "works with limits";
}

const char* to_string(CheckPer per) {
  switch (per) {
    case CheckPer::cell: return "cell";
    case CheckPer::op: return "op";
    case CheckPer::arch: return "arch";
    case CheckPer::library: return "library";
  }
  return "?";
}

namespace {

std::string script_of(const StepSpec& s) { return s.script.empty() ? "" : "scripts/cell/" + s.script; }

std::string what_runs(const StepSpec& s) { return s.script.empty() ? s.command : script_of(s); }

}  // namespace

nlohmann::json registry_json() {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : step_registry())
    steps.push_back({{"name", s.name}, {"script", script_of(s)}, {"command", s.command}, {"timeout_s", s.timeout_s},
                     {"when", to_string(s.when)}, {"does", s.does}, {"ends_cell", s.ends_cell}, {"atlas", s.in_atlas}});
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : check_registry()) {
    nlohmann::json j = {{"name", c.name}, {"steps", c.steps}, {"judge", c.judge}, {"per", to_string(c.per)},
                        {"catches", c.catches}, {"user_error", c.user_error}};
    const StepSpec* main = c.steps.empty() ? nullptr : find_step(c.steps.front());
    if (!c.subtests.empty()) j["subtests"] = c.subtests;
    if (c.torchvision_ops) j["torchvision_ops"] = true;
    j["weighs"] = to_string(c.weighs);
    if (!c.unexecuted.empty()) j["unexecuted"] = c.unexecuted;
    if (!c.wrong_result_kinds.empty()) j["wrong_result_kinds"] = c.wrong_result_kinds;
    if (!c.fake_kernel_subtests.empty()) j["fake_kernel_subtests"] = c.fake_kernel_subtests;
    j["step"] = main ? main->name : "";
    j["script"] = main ? script_of(*main) : "";
    j["timeout_s"] = main ? main->timeout_s : 0.0;
    std::vector<std::string> infra = step_infrastructure_kinds();
    infra.insert(infra.end(), c.infrastructure_kinds.begin(), c.infrastructure_kinds.end());
    j["infrastructure_kinds"] = infra;
    checks.push_back(j);
  }
  return {{"schema", "opmatrix-checks"}, {"schema_version", 1}, {"steps", steps}, {"checks", checks},
          {"registration_rule", registration_rule()}};
}

std::string registry_text() {
  std::string out = "Checks (what opmatrix reports, per cell):\n";
  for (const auto& c : check_registry()) {
    out += fmt::format("\n  {:<20} per {:<8} from step{} {}\n", c.name, to_string(c.per), c.steps.size() == 1 ? "" : "s",
                       c.steps.empty() ? "(none: a cell not run)" : fmt::format("{}", fmt::join(c.steps, ", ")));
    out += fmt::format("    catches: {}\n", c.catches);
    out += fmt::format("    users see: {}\n", c.user_error);
    if (!c.subtests.empty()) out += fmt::format("    sub-tests: {}\n", fmt::join(c.subtests, ", "));
    if (c.torchvision_ops) out += "    also judges torchvision's own ops (torchvision::NAME)\n";
    out += fmt::format("    a non-pass makes the cell: {}\n", to_string(c.weighs));
    if (!c.unexecuted.empty()) out += fmt::format("    a skip where CUDA is promised: {}\n", c.unexecuted);
  }
  out += "\nSteps (in run order; a cell's `timeouts:` overrides the default):\n";
  for (const auto& s : step_registry())
    out += fmt::format("  {:<22} {:>5.0f} s  {:<28} {}\n", s.name, s.timeout_s, to_string(s.when), what_runs(s));
  out += "\nRegistration rule: " + registration_rule() + "\n";
  return out;
}

std::string checks_markdown() {
  std::string out = "| check | per | step(s) | script | judge | catches | what users see | a non-pass makes the cell |\n"
                    "|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : check_registry()) {
    const StepSpec* main = c.steps.empty() ? nullptr : find_step(c.steps.front());
    const std::string script = main && !main->script.empty() ? "`" + script_of(*main) + "`" : "";
    const std::string weighs = c.unexecuted.empty() ? to_string(c.weighs)
                                                    : fmt::format("{}; a skip where CUDA is promised: {}",
                                                                  to_string(c.weighs), c.unexecuted);
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | `{}` | {} |\n", c.name, to_string(c.per),
                       c.steps.empty() ? "—" : fmt::format("{}", fmt::join(c.steps, ", ")), script, escape_md_cell(c.judge),
                       escape_md_cell(c.catches), escape_md_cell(c.user_error), escape_md_cell(weighs));
  }
  return out;
}

std::string steps_markdown() {
  std::string out =
      "| # | step | runs in | in an atlas pair | what runs | default timeout | does |\n|---|---|---|---|---|---|---|\n";
  int i = 0;
  for (const auto& s : step_registry())
    out += fmt::format("| {} | `{}` | {} | {} | {} | {:.0f} s | {} |\n", ++i, s.name, to_string(s.when),
                       s.in_atlas ? "yes" : "", s.script.empty() ? escape_md_cell(s.command) : "`" + script_of(s) + "`",
                       s.timeout_s, escape_md_cell(s.does));
  return out;
}

}  // namespace opmatrix
