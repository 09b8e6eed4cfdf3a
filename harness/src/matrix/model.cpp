#include "matrix/model.h"

#include <algorithm>

#include "checks/registry.h"

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
  static const std::vector<std::string> checks = check_names();
  return checks;
}

const std::vector<std::string>& known_places() {
  static const std::vector<std::string> places = {"local", "github", "gpu"};
  return places;
}

const std::vector<std::string>& known_steps() {
  static const std::vector<std::string> steps = step_names();
  return steps;
}

std::string Project::label() const {
  if (!pypi.empty()) return "pypi " + pypi;
  if (!wheel.empty()) return "wheel " + wheel;
  if (name.empty()) return path;
  return path == "." ? name : name + " (" + path + ")";
}

std::string Project::short_name() const {
  const std::string& pinned = !wheel.empty() ? wheel : pypi;
  if (!pinned.empty()) return pinned.substr(0, pinned.find("=="));
  return name.empty() ? path : name;
}

}  // namespace opmatrix
