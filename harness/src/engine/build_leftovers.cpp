#include "engine/build_leftovers.h"

#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace opmatrix {

namespace {

// What `podman ps|images --format json` prints: a list, or the reason it is not one.
nlohmann::json podman_list(const std::string& text, const std::string& command) {
  nlohmann::json all;
  try {
    all = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("podman {} --format json printed no JSON: {}", command, e.what()));
  }
  if (!all.is_array()) throw std::runtime_error(fmt::format("podman {} --format json printed no list", command));
  return all;
}

}  // namespace

std::vector<BuildLeftover> build_leftovers(const std::string& ps_json, std::int64_t since_epoch_s) {
  const nlohmann::json all = podman_list(ps_json, "ps");
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
  const nlohmann::json all = podman_list(images_json, "images");
  std::vector<std::string> found;
  for (const auto& i : all)
    if (i.is_object() && i.value("Containers", 0) == 0 && i.value("Created", std::int64_t{0}) >= since_epoch_s &&
        !i.value("Id", "").empty())
      found.push_back(i.value("Id", ""));
  return found;
}

}  // namespace opmatrix
