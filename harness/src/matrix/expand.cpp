#include "matrix/expand.h"

#include <fmt/format.h>

namespace opmatrix {

const std::string* lookup(const Combination& combo, const std::string& key) {
  for (const auto& [k, v] : combo)
    if (k == key) return &v;
  return nullptr;
}

namespace {

void set(Combination& combo, const std::string& key, const std::string& value) {
  for (auto& [k, v] : combo)
    if (k == key) {
      v = value;
      return;
    }
  combo.emplace_back(key, value);
}

std::string describe(const Combination& combo) {
  std::string out;
  for (const auto& [k, v] : combo) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", k, v);
  return out;
}

}  // namespace

std::vector<Combination> expand_axes(const MatrixAxes& spec, Diagnostics& diag) {
  std::vector<Combination> combos;
  if (!spec.axes.empty()) {
    combos.push_back({});
    for (const auto& axis : spec.axes) {
      std::vector<Combination> next;
      for (const auto& c : combos)
        for (const auto& v : axis.values) {
          Combination grown = c;
          grown.emplace_back(axis.name, v);
          next.push_back(std::move(grown));
        }
      combos = std::move(next);
    }
  }

  for (const auto& ex : spec.exclude) {
    const std::size_t before = combos.size();
    std::vector<Combination> kept;
    for (auto& c : combos) {
      bool matches = true;
      for (const auto& [k, v] : ex.values) {
        const std::string* have = lookup(c, k);
        if (!have || *have != v) matches = false;
      }
      if (!matches) kept.push_back(std::move(c));
    }
    combos = std::move(kept);
    if (combos.size() == before)
      diag.error(ex.pos, fmt::format("exclude entry {{{}}} matches no combination", describe(ex.values)));
  }

  // Combinations as they stood before any include: include never overwrites their values.
  const std::vector<Combination> original = combos;
  for (const auto& inc : spec.include) {
    bool extended = false;
    for (std::size_t i = 0; i < original.size(); ++i) {
      bool fits = true;
      for (const auto& [k, v] : inc.values) {
        const std::string* orig = lookup(original[i], k);
        if (orig && *orig != v) fits = false;
      }
      if (!fits) continue;
      extended = true;
      for (const auto& [k, v] : inc.values) set(combos[i], k, v);
    }
    if (extended) continue;
    std::vector<std::string> missing;
    for (const auto& a : spec.axes)
      if (!lookup(inc.values, a.name)) missing.push_back(a.name);
    if (!missing.empty()) {
      diag.error(inc.pos, fmt::format("include entry {{{}}} matches no combination, and as a new one "
                                      "it leaves {} unset",
                                      describe(inc.values), fmt::join(missing, ", ")));
      continue;
    }
    combos.push_back(inc.values);
  }
  return combos;
}

}  // namespace opmatrix
