#include "images/image_figures.h"

namespace opmatrix {

std::optional<ImageFigures> figures_in(const std::vector<FiguresRow>& rows, bool cuda_layers_present,
                                       const std::string& cuda) {
  for (const auto& row : rows)
    if (row.cuda_layers_present == cuda_layers_present && (!*row.cuda || cuda == row.cuda)) return row.figures;
  return std::nullopt;
}

}  // namespace opmatrix
