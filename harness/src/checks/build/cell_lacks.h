// Build failures that come from what the cell lacks, not from the library in this torch: a
// setup.py that refuses without a visible GPU where the build sees none (Deformable-DETR), a
// CUDA-only build (a CUDAExtension, an nvcc version probe, CMake's find_package(CUDA)) in a runtime
// without CUDA (Pointnet2_PyTorch's pointnet2_ops, causal-conv1d, fused-ssim, moolib), a system
// library's headers the image lacks (torchsparse's google/dense_hash_map, libsparsehash-dev), a
// system program it lacks (mpi4torch's mpicc), a Python its requires-python excludes
// (lrn-sparseatt: >=3.13 in a Python 3.11 image). Neither broken nor working here: the build check
// becomes a skip that names the cause, and the cell "not checked here".
#pragma once

#include "checks/cell_context.h"

namespace opmatrix {

// The diagnosis kind of a build that needs a system library's headers no part of the cell has.
inline constexpr const char* kNeedsSystemHeaders = "needs_system_headers";
// The diagnosis kind of a build that reaches for the network (a prebuilt binary it downloads).
inline constexpr const char* kBuildNeedsNetwork = "build_needs_network";
// The diagnosis kind of a project whose requires-python excludes the cell's Python.
inline constexpr const char* kPythonNotSupported = "python_not_supported";
// The diagnosis kind of a build that runs a system program no part of the cell has (MPI's mpicc).
inline constexpr const char* kNeedsSystemProgram = "needs_system_program";
// The diagnosis kind of a CUDA-only build in a runtime without CUDA.
inline constexpr const char* kNeedsCudaToBuild = "needs_cuda_to_build";

// Turns the failed build result just added (the last result) into such a skip where it is one.
void excuse_what_the_cell_lacks(CellContext& ctx);

}  // namespace opmatrix
