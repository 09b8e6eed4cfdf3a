#include "matrix/versions.h"

#include <algorithm>
#include <regex>

namespace opmatrix {

namespace {

// The torchvision pip installs beside each torch MAJOR.MINOR: the release made for it, at its
// newest patch on PyPI (torchvision's README table; each wheel's Requires-Dist torch==), or,
// for a torch that has none on PyPI yet, the newest release whose requirement accepts it.
// Checked on PyPI 2026-11-26: torchvision 0.29.0 requires torch==2.14.0, 0.29.2 (a stable-ABI
// py3-none wheel) torch>=2.14.0; there is no 0.30, so pip pairs torch 2.15.0 with 0.29.2.
struct TorchvisionPairing {
  int torch_major;
  int torch_minor;
  const char* torchvision;
};
constexpr TorchvisionPairing kTorchvisionPairings[] = {
    {1, 10, "0.11.3"}, {1, 11, "0.12.0"}, {1, 12, "0.13.1"}, {1, 13, "0.14.1"}, {2, 0, "0.15.2"},
    {2, 1, "0.16.2"},  {2, 2, "0.17.2"},  {2, 3, "0.18.1"},  {2, 4, "0.19.1"},  {2, 5, "0.20.1"},
    {2, 6, "0.21.0"},  {2, 7, "0.22.1"},  {2, 8, "0.23.0"},  {2, 9, "0.24.1"},  {2, 10, "0.25.0"},
    {2, 11, "0.26.0"}, {2, 12, "0.27.1"}, {2, 13, "0.28.0"}, {2, 14, "0.29.2"},
    {2, 15, "0.29.2"},  // none of its own yet: 0.29.2 accepts torch >= 2.14
};

}  // namespace

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
  // Nine digits at most, which an int holds: a longer number is no version (the fuzzer's
  // "2.1077777777777777.0" overflowed std::stoi, an exception that ended the run).
  static const std::regex re(R"(^([0-9]{1,9})\.([0-9]{1,9})(?![0-9]).*)");
  std::smatch m;
  if (!std::regex_match(version, m, re)) return std::nullopt;
  return MajorMinor{std::stoi(m[1]), std::stoi(m[2])};
}

std::optional<std::string> pip_torchvision_for(const std::string& torch_version) {
  const auto t = major_minor(torch_version);
  if (!t) return std::nullopt;
  for (const auto& p : kTorchvisionPairings)
    if (p.torch_major == t->major && p.torch_minor == t->minor) return std::string(p.torchvision);
  return std::nullopt;
}

std::optional<MajorMinor> upstream_torchvision_for(const std::string& torch_version) {
  const auto torchvision = pip_torchvision_for(torch_version);
  return torchvision ? major_minor(*torchvision) : std::nullopt;
}

bool version_less(const std::string& a, const std::string& b) {
  auto x = major_minor(a), y = major_minor(b);
  if (x && y && (x->major != y->major || x->minor != y->minor))
    return x->major != y->major ? x->major < y->major : x->minor < y->minor;
  return a < b;
}

}  // namespace opmatrix
