// `image: {builtin: debian-cuda}`: Debian contrib's CUDA torch (python3-torch-cuda) with the
// non-free CUDA toolkit of its suite (containers/debian-cuda.Containerfile).
#include "images/debian_toolkit_kind.h"
#include "images/image_kinds.h"

namespace opmatrix {

namespace {

// Measured (docs/containers.md "Measured"): trixie 9.22 GB; 372-500 s (429 s cold with the
// cuDNN stage, 2026-11-26); apt 783 MB + 1879 MB, cuDNN wheel 670 MB; its largest layer the
// toolkit, 5.7 GB. On its suite's toolkit layer already present (after a debian-cuda-toolkit
// image of the suite) it adds the CUDA torch with its cuDNN and torchvision: estimated as
// 9.22 GB less the 5.7 GB toolkit layer, not yet built that way.
const std::vector<FiguresRow> kFigures = {
    {false, "", {9.22e9, 3.33e9, 500, true, 5.7e9}},
    {true, "", {3.6e9, 1.8e9, 300, true, 1.9e9}},
};

const DebianToolkitKind kDebianCuda{
    {"debian-cuda", "containers/debian-cuda.Containerfile", {"suite"},
     "Debian contrib's CUDA torch (python3-torch-cuda) with the non-free CUDA toolkit"},
    kFigures};
const ImageKindRegistrar kRegistrar{kDebianCuda};

}  // namespace

}  // namespace opmatrix
