#include "checks/versions/versions_judge.h"

#include <regex>

#include <fmt/format.h>

#include "matrix/versions.h"

namespace opmatrix {

namespace {

std::string text_of(const nlohmann::json& probe, const char* key) {
  auto it = probe.find(key);
  return it != probe.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "2.5.1+cu124" -> "2.5.1"
std::string release_of(const std::string& v) { return v.substr(0, v.find('+')); }

bool same_major_minor(const std::string& a, const std::string& b) {
  auto x = major_minor(a), y = major_minor(b);
  return x && y && x->major == y->major && x->minor == y->minor;
}

// Debian's and other source builds report X.Y.0a0 whatever the patch release is.
bool is_source_build_version(const std::string& v) {
  static const std::regex re(R"(^\d+\.\d+\.\da0(\+.*)?$)");
  return std::regex_match(v, re);
}

}  // namespace

std::string declared_nvcc(const Cell& cell) {
  for (const auto& [k, v] : cell.image.args)
    if (k == "NVCC") return v;
  return cell.cuda;
}

CheckResult check_versions(const Cell& cell, const nlohmann::json& probe) {
  CheckResult c;
  c.check = "versions";
  std::vector<std::string> problems, notes;
  for (const auto& [name, declared, key] :
       std::vector<std::tuple<std::string, std::string, const char*>>{{"torch", cell.torch, "torch"},
                                                                       {"torchvision", cell.torchvision, "torchvision"}}) {
    const std::string found = text_of(probe, key);
    if (found.empty()) {
      problems.push_back(fmt::format("{} {} declared, none found", name, declared));
    } else if (release_of(found) == release_of(declared)) {
      notes.push_back(fmt::format("{} {}", name, found));
    } else if (is_source_build_version(found) && same_major_minor(found, declared)) {
      notes.push_back(fmt::format("{} {} (a source build's version; {} declared, major.minor agree)", name, found,
                                  declared));
    } else {
      problems.push_back(fmt::format("{} {} declared, {} found", name, declared, found));
    }
  }
  const std::string torch_cuda = text_of(probe, "torch_cuda");
  if (!cell.has_cuda() && !torch_cuda.empty()) {
    notes.push_back(fmt::format("torch has CUDA {} but the cell declares none (CUDA checks are not run)", torch_cuda));
  } else if (cell.has_cuda() && torch_cuda.empty()) {
    problems.push_back(fmt::format("CUDA {} declared, but torch was built without CUDA", cell.cuda));
  } else if (cell.has_cuda() && !same_major_minor(torch_cuda, cell.cuda)) {
    problems.push_back(fmt::format("CUDA {} declared, torch was built with CUDA {}", cell.cuda, torch_cuda));
  } else if (cell.has_cuda()) {
    notes.push_back("torch CUDA " + torch_cuda);
  }
  if (cell.has_cuda()) {
    const std::string nvcc = text_of(probe, "nvcc");
    const std::string want = declared_nvcc(cell);
    if (nvcc.empty()) problems.push_back(fmt::format("nvcc {} expected, none found", want));
    else if (!same_major_minor(nvcc, want)) problems.push_back(fmt::format("nvcc {} expected, {} found", want, nvcc));
    else notes.push_back("nvcc " + nvcc);
  }
  const std::string tv_cuda = text_of(probe, "torchvision_cuda");
  if (!tv_cuda.empty()) notes.push_back("torchvision CUDA " + tv_cuda);
  if (probe.contains("cxx11_abi") && probe["cxx11_abi"].is_boolean())
    notes.push_back(fmt::format("_GLIBCXX_USE_CXX11_ABI={}", probe["cxx11_abi"].get<bool>() ? 1 : 0));

  if (problems.empty()) {
    c.status = Status::pass;
    c.message = fmt::format("{}", fmt::join(notes, "; "));
    return c;
  }
  c.status = Status::error;
  c.message = fmt::format("{}", fmt::join(problems, "; "));
  Diagnosis d;
  d.kind = "version_mismatch";
  d.summary = "the cell's environment is not what matrix.yaml declares: " + c.message;
  d.fix = "fix the cell's declaration or its image (build args, pinned packages) so that they agree";
  d.evidence = probe.dump();
  c.diagnosis = d;
  return c;
}

}  // namespace opmatrix
