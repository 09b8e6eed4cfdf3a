#include "checks/tests/collection_errors.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/requirements/missing_module.h"
#include "util/json_fields.h"
#include "util/python_distributions.h"

namespace opmatrix {

namespace {

// Modules the cell's torch brings or the matrix chooses (its torchvision): a test file that lacks
// one says something of the cell's torch, never "add it to test_requires".
const std::vector<std::string> kTorchFamily = {"torch", "torchvision", "torchaudio", "triton"};

struct FileError {
  std::string file, module, message;
  bool own = false, top_installed = false;
};

// The files of one missing module, in the order pytest reported them.
struct ModuleGroup {
  ModuleDistribution dist;
  std::vector<std::string> files;
  std::string first_message;
};

std::string plural_files(std::size_t n) { return fmt::format("{} test file{}", n, n == 1 ? "" : "s"); }

// "a.py, b.py, c.py and 2 more": the first three files and how many besides.
std::string files_named(const std::vector<std::string>& files) {
  const std::size_t shown = std::min<std::size_t>(files.size(), 3);
  std::string out = fmt::format("{}", fmt::join(files.begin(), files.begin() + static_cast<std::ptrdiff_t>(shown), ", "));
  return files.size() > shown ? fmt::format("{} and {} more", out, files.size() - shown) : out;
}

CheckResult cell_result(Status status, std::string message, std::vector<std::string> tests, Diagnosis d) {
  CheckResult c;
  c.check = "tests";
  c.status = status;
  c.message = std::move(message);
  c.tests = std::move(tests);
  d.summary = c.message;
  c.diagnosis = std::move(d);
  return c;
}

// Why a file that lacks a module is no matter of the requirements: "" when it is one.
std::string not_a_distribution(const FileError& e) {
  const std::string top = e.module.substr(0, e.module.find('.'));
  if (e.own) return fmt::format("the module '{}' is the library's or its suite's own", e.module);
  if (std::find(kTorchFamily.begin(), kTorchFamily.end(), top) != kTorchFamily.end())
    return fmt::format("'{}' is the cell's torch family's, not a requirement", e.module);
  if (e.top_installed) return fmt::format("the cell has '{}', but not '{}'", top, e.module);
  return "";
}

// A red of one file: an import error other than a missing distribution.
CheckResult file_broken(const FileError& e, const TestsContext& ctx) {
  const std::string why = e.module.empty() ? "" : not_a_distribution(e);
  Diagnosis d;
  d.kind = "test_not_collected";
  d.fix = "the test file fails at import in this cell: run it alone with the command below and read its error";
  d.repro = ctx.repro_for ? ctx.repro_for(e.file) : ctx.repro;
  d.evidence = e.message;
  return cell_result(Status::fail,
                     fmt::format("{} could not be collected: {}{}", e.file, e.message.empty() ? "(no message)" : e.message,
                                 why.empty() ? "" : " (" + why + ")"),
                     {e.file}, d);
}

// One finding for every file that lacks one module, by where the module should have come from.
CheckResult module_result(const ModuleGroup& g, ModuleOrigin origin, const TestsContext& ctx) {
  const std::string& dist = g.dist.distribution;
  const std::string needs = fmt::format("the suite needs the module '{}' (distribution {}) in {} ({})", g.dist.module,
                                        dist, plural_files(g.files.size()), files_named(g.files));
  Diagnosis d;
  d.repro = ctx.repro_for ? ctx.repro_for(g.files.front()) : ctx.repro;
  d.evidence = g.first_message;
  if (origin == ModuleOrigin::not_required) {
    d.kind = kSuiteNeedsModule;
    d.fix = fmt::format("add {} to the project's test_requires: in matrix.yaml. The library leaves it out of its "
                        "requirements (its users install it themselves, or only some of its tests need it), so no "
                        "cell installs it; until then those files' tests do not run here, neither passed nor failed",
                        dist);
    return cell_result(Status::skip, needs + fmt::format(", which the matrix does not install: add {} to test_requires", dist),
                       g.files, d);
  }
  if (origin == ModuleOrigin::requirements_failed) {
    const CheckResult& req = *ctx.requirements_failed;
    d.kind = "requirement_not_installed";
    d.fix = req.diagnosis ? req.diagnosis->fix : "see the requirements check";
    return cell_result(Status::fail, needs + fmt::format(", and the cell could not get the project's requirements (see "
                                                         "requirements: {})", req.message.substr(0, 200)),
                       g.files, d);
  }
  d.kind = "required_module_missing";
  d.fix = fmt::format("the project requires a distribution of '{}' ({}), and the requirements step got it, yet it "
                      "cannot be imported: check that the release the cell got provides it for this Python and platform",
                      g.dist.module, dist);
  return cell_result(Status::fail, needs + ", which the project's requirements provide, and the cell still lacks it", g.files, d);
}

FileError read_error(const nlohmann::json& e) {
  FileError f;
  f.file = json_text(e, "file");
  f.module = json_text(e, "module");
  f.message = json_text(e, "message");
  f.own = e.value("own", false);
  f.top_installed = e.value("top_installed", false);
  return f;
}

}  // namespace

CollectionJudgement judge_collection_errors(const nlohmann::json& errors, const TestsContext& ctx) {
  CollectionJudgement out;
  std::vector<ModuleGroup> groups;
  for (const auto& e : errors.is_array() ? errors : nlohmann::json::array()) {
    const FileError f = read_error(e);
    ++out.not_collected.files;
    if (f.module.empty() || !not_a_distribution(f).empty()) {
      ++out.not_collected.broken_files;
      out.results.push_back(file_broken(f, ctx));
      continue;
    }
    const ModuleDistribution dist = distribution_of(f.module);
    auto g = std::find_if(groups.begin(), groups.end(), [&](const ModuleGroup& x) { return x.dist.module == dist.module; });
    if (g == groups.end()) g = groups.insert(groups.end(), ModuleGroup{dist, {}, f.message});
    g->files.push_back(f.file);
  }
  for (const auto& g : groups) {
    const ModuleOrigin origin = module_origin(g.dist.module, ctx.resolved, ctx.requirements_failed.has_value());
    if (origin == ModuleOrigin::not_required)
      out.not_collected.missing.push_back(g.dist.module);
    else
      out.not_collected.broken_files += static_cast<int>(g.files.size());
    out.results.push_back(module_result(g, origin, ctx));
  }
  return out;
}

std::string not_collected_clause(const NotCollected& n) {
  if (n.files == 0) return "";
  std::vector<std::string> why;
  if (!n.missing.empty())
    why.push_back(fmt::format("the suite needs {}, which the matrix does not install", fmt::join(n.missing, ", ")));
  if (n.broken_files > 0) why.push_back(fmt::format("{} fail{} at import", n.broken_files, n.broken_files == 1 ? "s" : ""));
  return fmt::format("{} not collected: {}", plural_files(static_cast<std::size_t>(n.files)), fmt::join(why, "; "));
}

}  // namespace opmatrix
