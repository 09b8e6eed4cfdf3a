# Everything a target needs to be built against the cell's LibTorch (and CUDA), in one
# idempotent module: kernels/ includes it, and so does cases/ *before* adding kernels/ as a
# subdirectory, because imported targets (torch, c10_cuda) are only visible in the
# directory that found them and below.
#
# Provides:
#   OPMATRIX_WITH_CUDA, OPMATRIX_CUDA_ARCHS   (cache options)
#   OPMATRIX_CXX_STANDARD                     (17, or 20 when the torch headers demand it)
#   OPMATRIX_TORCH_CXX_FLAGS                  (torch's -D_GLIBCXX_USE_CXX11_ABI=…, for non-torch targets such as gtest)
#   opmatrix_torch_settings(<target>)         (standard, ABI, archs, torch link, --no-as-needed)
include_guard(GLOBAL)

option(OPMATRIX_WITH_CUDA "Build the CUDA kernels; configuration fails if that is impossible" OFF)
set(OPMATRIX_CUDA_ARCHS "" CACHE STRING
  "CUDA archs as CMake writes them (e.g. 75;80;90); empty = nvcc's default")

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  # Kernels are benchmarked and timed per cell: an unoptimised build would mislead.
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

# ccache when present and the caller did not choose a launcher (the harness passes one).
find_program(OPMATRIX_CCACHE ccache)
if(OPMATRIX_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${OPMATRIX_CCACHE}")
endif()

list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}")
include(OpmatrixCuda)      # enable_language(CUDA) or fail loudly, before Torch looks for CUDA
if(OPMATRIX_WITH_CUDA AND OPMATRIX_CCACHE AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
  set(CMAKE_CUDA_COMPILER_LAUNCHER "${OPMATRIX_CCACHE}")
endif()
include(OpmatrixTorch)     # find_package(Torch), torch-has-CUDA check, C++ standard, ABI
include(OpmatrixPch)       # precompiled torch headers, and ccache told to accept them
