#include "checks/torchvision/torchvision_judge.h"

#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "diagnose/diagnose.h"
#include "matrix/versions.h"
#include "util/json_fields.h"

namespace opmatrix {

namespace {

std::string keys_of(const nlohmann::json& keys) {
  std::vector<std::string> have;
  for (const char* k : {"CPU", "CUDA", "Meta", "Autograd"})
    if (json_flag(keys, k)) have.push_back(k);
  return have.empty() ? std::string("none") : fmt::format("{}", fmt::join(have, "+"));
}

}  // namespace

std::optional<std::string> torchvision_unused(const nlohmann::json& import_report, const nlohmann::json& requirements,
                                              bool built) {
  for (const char* key : {"requirements", "left_out"}) {
    // A resolve step that printed no answer leaves null here.
    const nlohmann::json listed = requirements.is_object() ? requirements.value(key, nlohmann::json::array())
                                                           : nlohmann::json::array();
    for (const auto& r : listed) {
      const std::string text = r.is_string() ? r.get<std::string>() : json_text(r, "requirement");
      // A requirement's name ends where a specifier, marker, extra or space begins.
      if (text.substr(0, text.find_first_of(" <>=!~;[(")) == "torchvision") return std::nullopt;
    }
  }
  const char* unrequired = "its metadata does not require torchvision";
  if (!built) return fmt::format("it did not build (see build) and {}", unrequired);
  if (!import_report.is_object()) return std::nullopt;  // no import declared: its tests may use it
  if (!json_flag(import_report, "ok")) {
    const std::string said = json_text(import_report, "error") + json_text(import_report, "traceback");
    if (said.find("torchvision") != std::string::npos) return std::nullopt;
    return fmt::format("its import failed first, on something else (see load), and {}", unrequired);
  }
  if (!import_report.contains("torchvision_loaded") || json_flag(import_report, "torchvision_loaded"))
    return std::nullopt;
  return fmt::format("its import works without torchvision and {}", unrequired);
}

CheckResult not_the_projects(CheckResult c, const std::string& project, const std::string& why) {
  if (c.status == Status::pass || c.status == Status::skip) return c;
  c.message = fmt::format("not {}'s finding: {}; this environment's torchvision, for whoever uses it: {}", project, why,
                          c.message);
  c.status = Status::skip;
  return c;
}

std::string summarize_registration_json(const nlohmann::json& gtest_json) {
  std::map<std::string, std::vector<std::string>> per_op;
  for (const auto& suite : gtest_json.value("testsuites", nlohmann::json::array()))
    for (const auto& t : suite.value("testsuite", nlohmann::json::array())) {
      if (t.value("status", "") != "RUN") continue;
      const std::string name = t.value("name", "");
      const auto slash = name.find('/');
      if (slash == std::string::npos) continue;
      const bool skipped = t.value("result", "") == "SKIPPED";
      const bool failed = !t.value("failures", nlohmann::json::array()).empty();
      per_op[name.substr(slash + 1)].push_back(
          fmt::format("{} {}", name.substr(0, slash), skipped ? "skipped" : failed ? "missing" : "ok"));
    }
  std::string out;
  for (const auto& [op, parts] : per_op)
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", op, fmt::join(parts, ", "));
  return out;
}

CheckResult check_torchvision(const Cell& cell, const nlohmann::json& py, const std::string& cpp_view) {
  CheckResult c;
  c.check = "torchvision";
  std::vector<std::string> problems, notes;
  const std::string torch_cuda = json_text(py, "torch_cuda");
  const std::string tv_cuda = json_text(py, "torchvision_cuda");
  const std::string found_tv = json_text(py, "torchvision");
  Diagnosis d;
  d.repro = "python3 -c 'import torch, torchvision; print(torchvision.ops.nms(torch.rand(4, 4).cuda(), "
            "torch.rand(4).cuda(), 0.5))'";

  if (!json_flag(py, "import_ok")) {
    const std::string error = json_text(py, "error");
    const std::string symbols = undefined_symbols_in(error);
    problems.push_back("torchvision does not import: " + (symbols.empty() ? error : "undefined symbol " + symbols));
    d.kind = symbols.empty() ? "torchvision_load" : "undefined_symbol";
    d.evidence = error;
  }
  if (!torch_cuda.empty() && json_flag(py, "import_ok")) {
    const nlohmann::json nms = py.value("ops", nlohmann::json::object()).value("nms", nlohmann::json::object());
    if (!json_flag(nms, "CUDA")) {
      problems.push_back("torchvision::nms has no CUDA kernel although torch has CUDA " + torch_cuda +
                         ": users get \"Could not run 'torchvision::nms' with arguments from the 'CUDA' backend\"");
      d.kind = "not_registered";
    }
    if (tv_cuda.empty()) {
      problems.push_back("torchvision was built without CUDA, torch with CUDA " + torch_cuda);
      if (d.kind.empty()) d.kind = "cuda_mismatch";
    } else {
      auto a = major_minor(tv_cuda), b = major_minor(torch_cuda);
      if (!a || !b || a->major != b->major || a->minor != b->minor) {
        problems.push_back(fmt::format("torchvision was built with CUDA {}, torch with CUDA {}", tv_cuda, torch_cuda));
        if (d.kind.empty()) d.kind = "cuda_mismatch";
      }
    }
  }
  if (const auto want = upstream_torchvision_for(json_text(py, "torch").empty() ? cell.torch : json_text(py, "torch"))) {
    const auto have = major_minor(found_tv.empty() ? cell.torchvision : found_tv);
    if (have && (have->major != want->major || have->minor != want->minor))
      notes.push_back(fmt::format("note: upstream pairs torch {} with torchvision {}.{}; this cell has {}", cell.torch,
                                  want->major, want->minor, found_tv.empty() ? cell.torchvision : found_tv));
  }
  std::vector<std::string> ops;
  const nlohmann::json registered = py.value("ops", nlohmann::json::object());  // outlives the loop
  for (const auto& [op, keys] : registered.items())
    if (op == "nms" || op == "roi_align" || op == "deform_conv2d") ops.push_back(op + " " + keys_of(keys));
  if (!ops.empty()) notes.push_back(fmt::format("python import view: {}", fmt::join(ops, ", ")));
  if (!cpp_view.empty()) notes.push_back("C++ dlopen view: " + cpp_view);

  if (problems.empty()) {
    c.status = Status::pass;
    c.message = fmt::format("{}", fmt::join(notes, " | "));
    return c;
  }
  c.status = Status::fail;
  c.message = fmt::format("{}{}{}", fmt::join(problems, "; "), notes.empty() ? "" : " | ", fmt::join(notes, " | "));
  d.summary = fmt::format("{}", fmt::join(problems, "; "));
  const auto want = upstream_torchvision_for(cell.torch);
  d.fix = want ? fmt::format("install the torchvision built for this torch and CUDA (upstream: torchvision {}.{} for "
                             "torch {}, from the same index as torch)", want->major, want->minor, cell.torch)
               : "install the torchvision built for this torch and CUDA";
  c.diagnosis = d;
  return c;
}

}  // namespace opmatrix
