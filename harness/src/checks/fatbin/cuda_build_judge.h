// "Built with CUDA" only when a built library holds device code: the fatbin module's judgement
// across steps (build, load's registration, fatbin), made once the fatbin step has read them.
#pragma once

#include <cstddef>
#include <vector>

#include "checks/cell_context.h"

namespace opmatrix {

// The diagnosis kind of a CPU-only build whose setup.py builds CUDA only where a GPU is visible,
// in a cell whose build sees none: a limit (not checked here), not a red.
inline constexpr const char* kCudaBuildNeedsGpu = "cuda_build_needs_gpu";

// What the fatbin step read of the built libraries.
struct FatbinTally {
  int read = 0;              // libraries fatbin.py could read
  int with_device_code = 0;  // of those, the ones holding SASS or PTX
  std::vector<std::size_t> host_only_results;  // result.checks indices: fatbin results of host-only libraries
};

// A CUDA cell whose build made no device code gets one red on `build` naming why (a setup.py
// that enables CUDA only when a GPU is visible, a CPU wheel, ...); the reds that only follow
// from it (fatbin per arch, a missing CUDA kernel) become skips pointing there, not findings
// with wrong fixes. With device code: a project's build says how much, and host-only
// libraries beside CUDA ones (torch-scatter's _scatter_cpu.so) are not judged per arch.
void reconcile_cuda_build(CellContext& ctx, const FatbinTally& tally);

}  // namespace opmatrix
