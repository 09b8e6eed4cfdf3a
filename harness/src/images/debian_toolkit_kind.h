// What the kinds built on a Debian suite's non-free CUDA toolkit (debian-cuda,
// debian-cuda-toolkit) have in common: the suite follows the cell's torch as for debian, the
// cell must name a CUDA, and the images of one suite share the toolkit's layers. Each kind's
// module gives its recipe and measured figures.
#pragma once

#include "images/image_kind.h"

namespace opmatrix {

class DebianToolkitKind : public ImageKind {
 public:
  DebianToolkitKind(BuiltinImageRecipe recipe, std::vector<FiguresRow> figures)
      : recipe_(std::move(recipe)), figures_(std::move(figures)) {}

  const BuiltinImageRecipe& recipe() const override { return recipe_; }
  void resolve(const ImageRequest& request, Cell& cell) const override;
  std::optional<ImageFigures> figures(bool cuda_layers_present, const std::string& cuda) const override {
    return figures_in(figures_, cuda_layers_present, cuda);
  }
  // One key for both kinds: the same toolkit packages on the same base, whichever came first.
  std::string cuda_layers_key(const Cell& cell) const override;
  std::vector<InitCell> init_cells() const override { return {}; }

 private:
  BuiltinImageRecipe recipe_;
  std::vector<FiguresRow> figures_;
};

}  // namespace opmatrix
