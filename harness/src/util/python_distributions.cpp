#include "util/python_distributions.h"

#include <algorithm>
#include <cctype>

namespace opmatrix {

namespace {

// Import names whose distribution is named otherwise, or which more than one distribution
// provides. A module not here is its own distribution (numpy, scipy, onnx, einops); the ones
// listed with their own name are here for their alternatives or for the note.
const std::vector<ModuleDistribution>& table() {
  static const std::vector<ModuleDistribution> entries = {
      // headless: a cell has no display, and opencv-python needs libGL, which images lack
      {"cv2", "opencv-python-headless", {"opencv-python", "opencv-contrib-python", "opencv-contrib-python-headless"}, ""},
      {"PIL", "pillow", {"pillow-simd"}, ""},
      {"yaml", "pyyaml", {}, ""},
      {"ruamel.yaml", "ruamel.yaml", {}, ""},
      {"sklearn", "scikit-learn", {}, ""},
      {"skimage", "scikit-image", {}, ""},
      {"google.protobuf", "protobuf", {}, ""},
      {"onnx", "onnx", {"onnx-weekly"}, ""},
      {"scipy", "scipy", {}, ""},
      {"mmcv", "mmcv", {"mmcv-full", "mmcv-lite"}, ""},
      {"attr", "attrs", {}, ""},
      {"Crypto", "pycryptodome", {"pycrypto"}, ""},
      {"dateutil", "python-dateutil", {}, ""},
      {"bs4", "beautifulsoup4", {}, ""},
      {"cairo", "pycairo", {}, ""},
      {"gi", "PyGObject", {}, ""},
      {"serial", "pyserial", {}, ""},
      {"lxml", "lxml", {}, ""},
      {"tensorboard", "tensorboard", {"tb-nightly"}, ""},
      {"pycocotools", "pycocotools", {"pycocotools-fix"}, ""},
      {"shapely", "shapely", {}, ""},
      {"fvcore", "fvcore", {}, ""},
      {"iopath", "iopath", {}, ""},
      {"einops", "einops", {}, ""},
      {"timm", "timm", {}, ""},
      {"hypothesis", "hypothesis", {}, ""},
      {"expecttest", "expecttest", {}, ""},
      {"xdist", "pytest-xdist", {}, ""},
      {"mpl_toolkits", "matplotlib", {}, ""},
      {"absl", "absl-py", {}, ""},
      {"jwt", "PyJWT", {}, ""},
      {"zmq", "pyzmq", {}, ""},
      {"git", "GitPython", {}, ""},
      {"OpenGL", "PyOpenGL", {}, ""},
      {"faiss", "faiss-cpu", {"faiss-gpu"}, ""},
      {"pkg_resources", "setuptools", {}, ""},
      // torch's own test helpers import expecttest, which torch does not require
      {"torch.testing._internal", "expecttest", {}, "which imports expecttest"},
  };
  return entries;
}

bool falls_under(const std::string& module, const std::string& key) {
  return module == key || module.rfind(key + ".", 0) == 0;
}

}  // namespace

const ModuleDistribution* known_distribution(const std::string& module) {
  const ModuleDistribution* best = nullptr;
  for (const auto& e : table())
    if (falls_under(module, e.module) && (!best || e.module.size() > best->module.size())) best = &e;
  return best;
}

ModuleDistribution distribution_of(const std::string& module) {
  if (const ModuleDistribution* known = known_distribution(module)) return *known;
  const std::string top = module.substr(0, module.find('.'));
  static const std::string plugin = "pytest_";
  if (top.rfind(plugin, 0) == 0 && top.size() > plugin.size())
    return {top, normalised_distribution(top), {}, ""};  // pytest_cov -> pytest-cov
  return {top, top, {}, ""};
}

std::string normalised_distribution(const std::string& name) {
  std::string out;
  for (char ch : name) {
    const bool sep = ch == '-' || ch == '_' || ch == '.';
    if (sep) {
      if (!out.empty() && out.back() != '-') out.push_back('-');
    } else {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string requirement_name(const std::string& requirement) {
  std::size_t from = requirement.find_first_not_of(" \t");
  if (from == std::string::npos) return "";
  std::size_t to = from;
  auto in_name = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.'; };
  while (to < requirement.size() && in_name(requirement[to])) ++to;
  return normalised_distribution(requirement.substr(from, to - from));
}

bool provided_by(const std::string& module, const std::vector<std::string>& distributions) {
  const ModuleDistribution d = distribution_of(module);
  std::vector<std::string> providers = {normalised_distribution(d.distribution)};
  for (const auto& alt : d.alternatives) providers.push_back(normalised_distribution(alt));
  return std::any_of(distributions.begin(), distributions.end(), [&](const std::string& name) {
    const std::string n = requirement_name(name);
    return std::find(providers.begin(), providers.end(), n) != providers.end();
  });
}

}  // namespace opmatrix
