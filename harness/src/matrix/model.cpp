#include "matrix/model.h"

#include <algorithm>

namespace opmatrix {

bool Cell::runs(const std::string& place) const {
  return std::find(where.begin(), where.end(), place) != where.end();
}

const Cell* Matrix::find(const std::string& id) const {
  for (const auto& c : cells)
    if (c.id == id) return &c;
  return nullptr;
}

const std::vector<std::string>& known_checks() {
  static const std::vector<std::string> checks = {
      "versions", "build", "load", "registration", "correctness", "gradient",
      "meta",     "device", "arch", "nvrtc", "fatbin", "torchvision", "smoke", "crossload"};
  return checks;
}

const std::vector<std::string>& known_places() {
  static const std::vector<std::string> places = {"local", "github", "gpu"};
  return places;
}

const std::vector<std::string>& known_steps() {
  static const std::vector<std::string> steps = {"image", "probe", "configure", "build", "test", "load", "smoke", "nvrtc", "fatbin"};
  return steps;
}

}  // namespace opmatrix
