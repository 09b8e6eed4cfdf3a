// An arch the toolkit cannot target that the cell never asked for: the project's build sets its
// own archs (Pointnet2_PyTorch's setup.py assigns TORCH_CUDA_ARCH_LIST = "3.7+PTX;5.0;…;7.5",
// which CUDA 13 refuses). The red stands; its fix is the project's line, not the cell's cuda_archs.
#pragma once

#include "checks/cell_context.h"

namespace opmatrix {

// Rewrites the fix of the failed build result just added (the last result) where it is one.
void name_the_projects_own_archs(CellContext& ctx);

}  // namespace opmatrix
