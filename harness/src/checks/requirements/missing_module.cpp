#include "checks/requirements/missing_module.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/cell_context.h"
#include "checks/registry.h"
#include "util/python_distributions.h"

namespace opmatrix {

namespace {

// "torchdata.datapipes" of "No module named 'torchdata.datapipes'"; "" when it names a top module.
std::string missing_submodule(const std::string& text) {
  static const std::regex no_module(R"(No module named '([A-Za-z_]\w*\.[\w.]+)')");
  std::smatch m;
  return std::regex_search(text, m, no_module) ? m[1].str() : "";
}

// "interaction_mode' from 'tensordict.nn.probabilistic" of "cannot import name 'interaction_mode'
// from 'tensordict.nn.probabilistic' (...)": {name, module}; empty where the text has none.
std::pair<std::string, std::string> missing_name(const std::string& text) {
  static const std::regex cannot(R"(cannot import name '(\w+)' from '([A-Za-z_][\w.]*)')");
  std::smatch m;
  return std::regex_search(text, m, cannot) ? std::make_pair(m[1].str(), m[2].str()) : std::make_pair(std::string(), std::string());
}

// A submodule, or a name in a module, that the release pip picked for a requirement lacks (dgl
// 2.1.0's torchdata.datapipes in torchdata 0.11.0; torchrl 0.5.0's interaction_mode from
// tensordict.nn.probabilistic in tensordict 0.14.3): the requirement, unbounded, let pip pick it.
void name_release_lacking(const std::string& text, const nlohmann::json& resolved, Diagnosis& d) {
  if (!resolved.is_object()) return;
  std::string wanted = missing_submodule(text), module = wanted;
  const auto [name, from] = missing_name(text);
  if (wanted.empty() && !name.empty()) {
    wanted = fmt::format("{}' from '{}", name, from);
    module = from;
  }
  if (wanted.empty() || module.rfind("torch.", 0) == 0 || module == "torch") return;
  const ModuleDistribution dist = distribution_of(module);
  const auto [version, requirement] = installed_for(dist.distribution, resolved);
  if (version.empty()) return;
  d.kind = "requirement_lacks_module";
  d.summary = fmt::format("the import needs '{}', which {} {} does not have: pip installed that release for the "
                          "requirement {}, which does not rule it out",
                          wanted, dist.distribution, version, requirement);
  d.fix = fmt::format("bound the requirement to the releases of {} that have '{}' ({} has not), or stop importing it",
                      dist.distribution, name.empty() ? wanted : name, version);
}

}  // namespace

std::pair<std::string, std::string> installed_for(const std::string& distribution, const nlohmann::json& resolved) {
  std::string version, requirement;
  for (const auto& i : resolved.value("install", nlohmann::json::array()))
    if (i.is_object() && normalised_distribution(i.value("name", "")) == normalised_distribution(distribution))
      version = i.value("version", "");
  for (const auto& r : resolved.value("requirements", nlohmann::json::array()))
    if (r.is_string() && requirement_name(r.get<std::string>()) == normalised_distribution(distribution))
      requirement = r.get<std::string>();
  return {version, requirement.empty() ? distribution : requirement};
}

std::string missing_module(const std::string& text) {
  static const std::regex no_module(R"(No module named '([A-Za-z_][\w]*)(\.[\w.]*)?')");
  std::smatch m;
  if (!std::regex_search(text, m, no_module) || m[1] == "torch") return "";
  return m[1];
}

const CheckResult* failed_requirements(const std::vector<CheckResult>& checks) {
  const auto req = std::find_if(checks.begin(), checks.end(),
                                [](const CheckResult& c) { return c.check == "requirements" && is_bad(c.status); });
  return req == checks.end() ? nullptr : &*req;
}

ModuleOrigin module_origin(const std::string& module, const nlohmann::json& resolved, bool requirements_failed) {
  if (requirements_failed) return ModuleOrigin::requirements_failed;
  if (!resolved.is_object()) return ModuleOrigin::not_required;
  // What was asked for, and what pip brought with it (scikit-image brings scipy).
  std::vector<std::string> got;
  for (const auto& r : resolved.value("requirements", nlohmann::json::array()))
    if (r.is_string()) got.push_back(r.get<std::string>());
  for (const auto& i : resolved.value("install", nlohmann::json::array()))
    if (i.is_object() && i.contains("name") && i["name"].is_string()) got.push_back(i["name"].get<std::string>());
  return provided_by(module, got) ? ModuleOrigin::required : ModuleOrigin::not_required;
}

void name_missing_requirement(const std::string& project, const nlohmann::json& resolved,
                              std::vector<CheckResult>& checks) {
  const auto import = std::find_if(checks.begin(), checks.end(), [](const CheckResult& c) {
    return c.check == "load" && c.subtest == "import" && is_bad(c.status) && c.diagnosis;
  });
  // An import the run could not check (load's infrastructure kinds: its module not in the package)
  // says nothing of the requirements. A Python module that the log rules call the image's (pybind11,
  // which a build needs) is, when the installed package's import asks for it, its requirements'
  // to bring (triton-ascend 3.2.0 imports pybind11 and requires nothing; it read "the cell image
  // lacks the pybind11 Python package …: the image's fault").
  if (import == checks.end()) return;
  const std::string text = import->message + "\n" + import->diagnosis->evidence;
  const std::string module = missing_module(text);
  const bool a_module_of_the_image = import->diagnosis->kind == "image_missing_prerequisite" && !module.empty();
  if (is_infrastructure("load", import->diagnosis->kind) && !a_module_of_the_image) return;
  Diagnosis& d = *import->diagnosis;
  if (module.empty()) {
    // Not a missing module; perhaps a name a requirement's installed release lacks.
    name_release_lacking(text, resolved, d);
    return;
  }
  const CheckResult* req = failed_requirements(checks);
  const ModuleOrigin origin = module_origin(module, resolved, req != nullptr);
  if (origin == ModuleOrigin::required) {
    // A submodule a requirement's installed release lacks (dgl 2.1.0 imports torchdata.datapipes;
    // pip picks torchdata 0.11.0 for its `torchdata>=0.5.0`, and 0.11.0 has none): the
    // requirement, unbounded, lets pip install a release without it.
    name_release_lacking(text, resolved, d);
    return;
  }
  if (origin == ModuleOrigin::requirements_failed && req->diagnosis && is_infrastructure("requirements", req->diagnosis->kind)) {
    // The run could not get them (the network, an index it does not reach): nor can it judge an
    // import that needs them. Not checked, never the library's red.
    import->status = Status::error;
    d.kind = kRequirementsNotHad;
    d.summary = fmt::format("not checked here: the import needs the module '{}', and this run could not get the "
                            "project's requirements ({})", module, req->message.substr(0, 200));
    d.fix = req->diagnosis->fix;
    return;
  }
  if (origin == ModuleOrigin::requirements_failed) {
    d.kind = "requirement_not_installed";
    d.summary = fmt::format("the import needs the module '{}', and the cell could not get the project's requirements "
                            "(see requirements: {})", module, req->message.substr(0, 200));
    d.fix = req->diagnosis ? req->diagnosis->fix : "see the requirements check";
    return;
  }
  const auto wanted = resolved.is_object() ? resolved.value("requirements", nlohmann::json::array()) : nlohmann::json::array();
  d.kind = "undeclared_requirement";
  d.summary = fmt::format("the import needs the module '{}', which nothing {} requires provides ({}): a user's pip "
                          "install does not bring it either", module, project,
                          wanted.empty() ? std::string("it requires nothing besides torch")
                                         : fmt::format("it requires {}", fmt::join(wanted.get<std::vector<std::string>>(), ", ")));
  d.fix = fmt::format("declare the distribution that provides '{}': in the library's install_requires (its "
                      "Requires-Dist, what users' pip install brings) — or, where its users are told to install it "
                      "themselves beside the library, in the matrix project's requires:, so that every cell does too",
                      module);
}

namespace {

const bool kRegistered = (register_cell_rule(8, {"an import that lacks a module: the requirement it comes from",
                                                 [](CellContext& ctx) {
                                                   if (!ctx.cell.project) return;
                                                   const auto& note = ctx.notes.value("requirements", nlohmann::json::object());
                                                   name_missing_requirement(ctx.cell.project->label(),
                                                                            note.value("resolved", nlohmann::json()),
                                                                            ctx.result.checks);
                                                 }}),
                          true);

}  // namespace

}  // namespace opmatrix
