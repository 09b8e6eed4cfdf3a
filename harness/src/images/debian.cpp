// `image: {builtin: debian}`: Debian's own torch, torchvision and LibTorch packages (CPU) of a
// suite (containers/debian.Containerfile); the suite follows the cell's torch.
#include <fmt/format.h>

#include "images/debian_suites.h"
#include "images/image_kinds.h"
#include "matrix/versions.h"

namespace opmatrix {

namespace {

// Measured (docs/containers.md "Measured", bench/images/README.md): bookworm 1.77 GB, trixie
// 1.76 GB, sid 1.87 GB; 89-185 s; apt 338-368 MB; its largest layer, the packages, 0.6 GB.
// The largest and slowest, so that the estimate errs on the safe side.
const std::vector<FiguresRow> kFigures = {
    {false, "", {1.87e9, 0.37e9, 185, true, 0.6e9}},
};

// The suites `opmatrix init` proposes a cell on, and why.
struct InitSuite {
  const char* suite;
  const char* why;
};
const InitSuite kInitSuites[] = {
    {"trixie", "Debian's own torch and torchvision (CPU): what `apt install python3-torch` users have"},
};

class Debian final : public ImageKind {
 public:
  const BuiltinImageRecipe& recipe() const override { return recipe_; }

  void resolve(const ImageRequest& request, Cell& cell) const override {
    add_build_arg(cell, "SUITE", suite_for_debian_torch(request, cell));
    if (cell.has_cuda())
      request.error(request.where,
                    fmt::format("the built-in image 'debian' is Debian's CPU torch, but the cell says cuda {}: use "
                                "debian-cuda (python3-torch-cuda), debian-cuda-toolkit (CPU torch, CUDA compiler) "
                                "or pypi", cell.cuda));
  }

  std::optional<ImageFigures> figures(bool cuda_layers_present, const std::string& cuda) const override {
    return figures_in(kFigures, cuda_layers_present, cuda);
  }

  std::string cuda_layers_key(const Cell&) const override { return ""; }

  std::vector<InitCell> init_cells() const override {
    std::vector<InitCell> cells;
    for (const auto& s : kInitSuites) {
      const auto suite = find_debian_suite(s.suite);
      const auto torch = major_minor(suite->torch);
      cells.push_back({fmt::format("{}-torch{}.{}-cpu", s.suite, torch->major, torch->minor), suite->torch,
                       suite->torchvision, "none", fmt::format("{{builtin: debian, suite: {}}}", s.suite),
                       "Debian's own torch/torchvision packages (CPU)", s.why});
    }
    return cells;
  }

 private:
  BuiltinImageRecipe recipe_{"debian", "containers/debian.Containerfile", {"suite"},
                             "Debian's own torch, torchvision and LibTorch packages (CPU) of a suite"};
};

const Debian kDebian;
const ImageKindRegistrar kRegistrar{kDebian};

}  // namespace

}  // namespace opmatrix
