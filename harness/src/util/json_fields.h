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

// The JSON object on the last non-empty line of a script's stdout (the lines before it may be
// anything); discarded JSON when there is none.
inline nlohmann::json last_json_line(const std::string& out) {
  const std::size_t end = out.find_last_not_of('\n');
  if (end == std::string::npos) return nlohmann::json::value_t::discarded;
  const std::size_t nl = out.rfind('\n', end);
  const std::size_t start = nl == std::string::npos ? 0 : nl + 1;
  return nlohmann::json::parse(out.substr(start, end + 1 - start), nullptr, false);
}

}  // namespace opmatrix
