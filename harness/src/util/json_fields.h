// Reading the JSON the in-cell scripts print, where any key may be missing or of another
// type (an older script, a torch that cannot answer): one set of tolerant readers.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace opmatrix {

// j[key] when j is an object and it is a string, else "".
inline std::string json_text(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// true only for a JSON `true`: a key the script could not ask about is null.
inline bool json_flag(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return false;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace opmatrix
