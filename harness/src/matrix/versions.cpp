#include "matrix/versions.h"

#include <algorithm>
#include <regex>

namespace opmatrix {

bool is_package_version(const std::string& v) {
  static const std::regex re(R"(^[0-9]{1,3}\.[0-9]{1,3}(\.[0-9]{1,4})?((a|b|rc)[0-9]{1,3}|\.(dev|post)[0-9]{1,8})?(\+[a-z0-9.]{1,32})?$)");
  return std::regex_match(v, re);
}

bool is_cuda_version(const std::string& v) {
  static const std::regex re(R"(^[0-9]{1,2}\.[0-9]{1,2}$)");
  return v == "none" || std::regex_match(v, re);
}

bool is_arch_syntax(const std::string& arch) {
  static const std::regex re(R"(^[0-9]{1,2}\.[0-9][af]?$)");
  return std::regex_match(arch, re);
}

const std::vector<std::string>& known_archs() {
  static const std::vector<std::string> archs = {
      "3.5", "3.7", "5.0", "5.2", "5.3", "6.0", "6.1", "6.2", "7.0", "7.2", "7.5", "8.0",
      "8.6", "8.7", "8.8", "8.9", "9.0", "10.0", "10.1", "10.3", "11.0", "12.0", "12.1"};
  return archs;
}

std::optional<MajorMinor> major_minor(const std::string& version) {
  static const std::regex re(R"(^([0-9]+)\.([0-9]+).*)");
  std::smatch m;
  if (!std::regex_match(version, m, re)) return std::nullopt;
  return MajorMinor{std::stoi(m[1]), std::stoi(m[2])};
}

std::optional<MajorMinor> upstream_torchvision_for(const std::string& torch_version) {
  const auto t = major_minor(torch_version);
  if (!t) return std::nullopt;
  // torchvision's README table: 1.10->0.11 … 1.13->0.14, then 2.N -> 0.(15+N).
  if (t->major == 1 && t->minor >= 10 && t->minor <= 13) return MajorMinor{0, t->minor + 1};
  if (t->major == 2) return MajorMinor{0, 15 + t->minor};
  return std::nullopt;
}

}  // namespace opmatrix
