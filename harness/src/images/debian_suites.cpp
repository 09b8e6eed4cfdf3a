#include "images/debian_suites.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "matrix/versions.h"
#include "util/suggest.h"

namespace opmatrix {

namespace {

// What each suite ships (docs/containers.md; containers/debian.Containerfile's header). forky
// is named so that a cell can build on it; opmatrix has measured nothing there yet.
const DebianSuite kSuites[] = {
    {"bookworm", "1.13.1", "0.14.1", "11.8"},
    {"trixie", "2.6.0", "0.21.0", "12.4"},
    {"forky", "", "", ""},
    {"sid", "2.14.1", "0.27.0", ""},
};

std::vector<std::string> suite_names() {
  std::vector<std::string> names;
  for (const auto& s : kSuites) names.emplace_back(s.name);
  return names;
}

// "bookworm has 1.13, trixie 2.6, sid 2.14": the suites that ship a torch, for errors.
std::string torch_of_each_suite() {
  std::vector<std::string> parts;
  for (const auto& s : kSuites)
    if (const auto v = major_minor(s.torch))
      parts.push_back(fmt::format("{}{} {}.{}", s.name, parts.empty() ? " has" : "", v->major, v->minor));
  return fmt::format("{}", fmt::join(parts, ", "));
}

bool same_minor(const std::string& a, const std::string& b) {
  const auto x = major_minor(a), y = major_minor(b);
  return x && y && x->major == y->major && x->minor == y->minor;
}

}  // namespace

std::optional<DebianSuite> find_debian_suite(const std::string& name) {
  for (const auto& s : kSuites)
    if (name == s.name) return s;
  return std::nullopt;
}

std::string debian_suite_for_torch(const std::string& torch) {
  for (const auto& s : kSuites)
    if (*s.torch && same_minor(torch, s.torch)) return s.name;
  return "";
}

const char* debian_toolkit_suite(const std::string& nvcc) {
  for (const auto& s : kSuites)
    if (*s.toolkit_nvcc && nvcc == s.toolkit_nvcc) return s.name;
  return nullptr;
}

std::string debian_toolkit_nvcc(int cuda_major) {
  for (const auto& s : kSuites)
    if (const auto v = major_minor(s.toolkit_nvcc); v && v->major == cuda_major) return s.toolkit_nvcc;
  return "";
}

std::string debian_toolkits_text() {
  std::vector<std::string> parts;
  for (const auto& s : kSuites)
    if (*s.toolkit_nvcc) parts.push_back(fmt::format("{} ({})", s.toolkit_nvcc, s.name));
  return fmt::format("{}", fmt::join(parts, " or "));
}

std::string checked_suite_option(const ImageRequest& request) {
  const BuiltinOption* s = request.option("suite");
  if (!s) return "";
  if (!find_debian_suite(s->value)) {
    const auto known = suite_names();
    request.error(s->pos, fmt::format("unknown Debian suite '{}' (known: {}){}", s->value, fmt::join(known, ", "),
                                      did_you_mean(s->value, known)));
  }
  return s->value;
}

std::string suite_for_debian_torch(const ImageRequest& request, const Cell& cell) {
  if (request.option("suite")) return checked_suite_option(request);
  const std::string suite = debian_suite_for_torch(cell.torch);
  if (suite.empty())
    request.error(request.where,
                  fmt::format("no Debian suite ships torch {} ({}): name the suite (suite: trixie) or take the PyPI "
                              "wheels (builtin: pypi)", cell.torch, torch_of_each_suite()));
  return suite;
}

}  // namespace opmatrix
