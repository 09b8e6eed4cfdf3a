// `image: {builtin: debian-cuda-toolkit}`: Debian's CPU torch next to the non-free CUDA
// toolkit of its suite, a compiler torch cannot use (containers/debian-cuda-toolkit.Containerfile).
#include "images/debian_toolkit_kind.h"
#include "images/image_kinds.h"

namespace opmatrix {

namespace {

// Measured (docs/containers.md "Measured"): bookworm 7.31 GB; 354 s; apt 1547 MiB + 238 MB;
// its largest layer the toolkit, 5.7 GB (trixie; bookworm's 5.5 GB). With its suite's toolkit
// layer present (trixie after debian-cuda, 2026-11-26): adds 1.23 GB (6.76 GB alone), the CPU
// torch packages; 97 s; apt 244 MB.
const std::vector<FiguresRow> kFigures = {
    {false, "", {7.31e9, 1.86e9, 354, true, 5.7e9}},
    {true, "", {1.23e9, 0.26e9, 97, true, 0.6e9}},
};

const DebianToolkitKind kDebianCudaToolkit{
    {"debian-cuda-toolkit", "containers/debian-cuda-toolkit.Containerfile", {"suite"},
     "Debian's CPU torch next to the non-free CUDA toolkit (a compiler torch cannot use)"},
    kFigures};
const ImageKindRegistrar kRegistrar{kDebianCudaToolkit};

}  // namespace

}  // namespace opmatrix
