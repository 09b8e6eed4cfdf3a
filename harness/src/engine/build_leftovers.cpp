#include "engine/build_leftovers.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace opmatrix {

std::vector<BuildLeftover> build_leftovers(const std::string& ps_json, std::int64_t since_epoch_s) {
  nlohmann::json all;
  try {
    all = nlohmann::json::parse(ps_json);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("podman ps --format json printed no JSON: ") + e.what());
  }
  if (!all.is_array()) throw std::runtime_error("podman ps --format json printed no list");
  std::vector<BuildLeftover> found;
  for (const auto& c : all) {
    if (!c.is_object()) continue;
    // Containers podman runs have a state of their own (running, exited…); only a build's
    // working containers live in storage alone, with "buildah" as their command.
    const auto command = c.value("Command", nlohmann::json::array());
    const bool buildah = command.is_array() && !command.empty() && command.front() == "buildah";
    if (!buildah || c.value("State", "") != "storage") continue;
    if (c.value("Created", std::int64_t{0}) < since_epoch_s) continue;
    found.push_back({c.value("Id", ""), c.value("ImageID", "")});
  }
  return found;
}

std::vector<std::string> unused_images_since(const std::string& images_json, std::int64_t since_epoch_s) {
  nlohmann::json all;
  try {
    all = nlohmann::json::parse(images_json);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("podman images --format json printed no JSON: ") + e.what());
  }
  if (!all.is_array()) throw std::runtime_error("podman images --format json printed no list");
  std::vector<std::string> found;
  for (const auto& i : all)
    if (i.is_object() && i.value("Containers", 0) == 0 && i.value("Created", std::int64_t{0}) >= since_epoch_s &&
        !i.value("Id", "").empty())
      found.push_back(i.value("Id", ""));
  return found;
}

}  // namespace opmatrix
