#include "matrix/to_json.h"

namespace opmatrix {

namespace {

nlohmann::json args_object(const ImageSpec& image) {
  nlohmann::json args = nlohmann::json::object();
  for (const auto& [k, v] : image.args) args[k] = v;
  return args;
}

}  // namespace

nlohmann::json cell_to_json(const Cell& cell) {
  nlohmann::json j;
  j["id"] = cell.id;
  j["torch"] = cell.torch;
  j["torchvision"] = cell.torchvision;
  j["cuda"] = cell.cuda;
  j["where"] = cell.where;
  j["default"] = cell.in_default;
  // Only where set: other cells' keys (and so their cache keys) stay as they were.
  if (cell.reference) j["reference"] = true;
  if (cell.atlas_pair) j["atlas_pair"] = true;
  j["runner"] = cell.runner == Runner::host ? "host" : "container";
  if (cell.runner == Runner::container) {
    nlohmann::json image;
    if (!cell.image.builtin.empty()) image["builtin"] = cell.image.builtin;
    if (!cell.image.ref.empty()) image["ref"] = cell.image.ref;
    else image["containerfile"] = cell.image.containerfile;
    image["args"] = args_object(cell.image);
    j["image"] = image;
  }
  j["cuda_archs"] = cell.has_cuda() ? cell.cuda_archs : std::vector<std::string>{};
  nlohmann::json expect = nlohmann::json::array();
  for (const auto& x : cell.expect) {
    nlohmann::json e{{"check", x.check}, {"status", x.status}, {"reason", x.reason}};
    if (!x.op.empty()) e["op"] = x.op;
    if (!x.arch.empty()) e["arch"] = x.arch;
    expect.push_back(e);
  }
  j["expect"] = expect;
  nlohmann::json timeouts = nlohmann::json::object();
  for (const auto& [step, seconds] : cell.timeouts) timeouts[step] = seconds;
  j["timeouts"] = timeouts;
  if (!cell.notes.empty()) j["notes"] = cell.notes;
  if (!cell.diagnoses.empty()) j["diagnoses"] = cell.diagnoses;
  if (cell.project) {
    const Project& p = *cell.project;
    j["project"] = {{"kind", p.kind}, {"namespace", p.ns}, {"ops", p.ops}, {"smoke", p.smoke}, {"label", p.label()}};
    if (!p.path.empty()) j["project"]["path"] = p.path;
    if (!p.pypi.empty()) j["project"]["pypi"] = p.pypi;
    if (!p.wheel.empty()) j["project"]["wheel"] = p.wheel;
    if (!p.import_module.empty()) j["project"]["import"] = p.import_module;
    if (!p.samples.empty()) j["project"]["samples"] = p.samples;
    if (!p.tests.empty()) j["project"]["tests"] = p.tests;
    if (!p.test_requires.empty()) j["project"]["test_requires"] = p.test_requires;
    if (!p.requires_also.empty()) j["project"]["requires"] = p.requires_also;
    // Only where declared: a cell's results (and their cache key) stay as they were without.
    if (!p.promises.backends.empty()) j["project"]["promises"]["backends"] = p.promises.backends;
    if (!p.promises.why.empty()) j["project"]["promises"]["why"] = p.promises.why;
    for (const auto& [op, promise] : p.promises.ops) {
      nlohmann::json o = {{"registered", promise.registered}, {"why", promise.why}};
      if (!promise.backends.empty()) o["backends"] = promise.backends;
      if (!promise.arch.empty()) o["arch"] = promise.arch;
      j["project"]["promises"]["ops"][op] = o;
    }
  }
  return j;
}

nlohmann::json github_job_entry(const Cell& cell) {
  const bool host = cell.runner == Runner::host;
  nlohmann::json j;
  j["id"] = cell.id;
  j["torch"] = cell.torch;
  j["torchvision"] = cell.torchvision;
  j["cuda"] = cell.cuda;
  // GPU cells need a self-hosted runner with a GPU; everything else fits a hosted runner.
  j["runs_on"] = cell.runs("gpu") ? nlohmann::json::array({"self-hosted", "linux", "x64", "gpu"})
                                  : nlohmann::json::array({"ubuntu-24.04"});
  j["engine"] = host ? "host" : "docker";
  j["containerfile"] = host ? "" : cell.image.containerfile;
  j["build_args"] = args_object(cell.image);
  return j;
}

}  // namespace opmatrix
