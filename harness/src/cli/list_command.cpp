#include <algorithm>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "matrix/to_json.h"

namespace opmatrix {

int list_command(const ListOptions& opts, std::ostream& out, std::ostream& err) {
  auto m = load_matrix_or_report(opts.matrix, err);
  if (!m) return kExitUsage;
  std::vector<const Cell*> cells;
  for (const auto& c : m->cells)
    if (cell_selected(c, opts.where)) cells.push_back(&c);

  if (opts.json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const Cell* c : cells) arr.push_back(cell_to_json(*c));
    out << arr.dump(2) << '\n';
    return kExitOk;
  }
  std::size_t width = 4;
  for (const Cell* c : cells) width = std::max(width, c->id.size());
  out << fmt::format("{:<{}}  {:<10} {:<12} {:<6} {}\n", "cell", width, "torch", "torchvision", "cuda", "where");
  for (const Cell* c : cells) {
    std::string where = fmt::format("{}", fmt::join(c->where, ","));
    if (c->runs("local") && !c->in_default) where += " (not in default run)";
    out << fmt::format("{:<{}}  {:<10} {:<12} {:<6} {}\n", c->id, width, c->torch, c->torchvision, c->cuda, where);
  }
  return kExitOk;
}

}  // namespace opmatrix
