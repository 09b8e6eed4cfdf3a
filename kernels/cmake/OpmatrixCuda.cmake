# OPMATRIX_WITH_CUDA=ON: find nvcc and enable CUDA *before* find_package(Torch), because
# torch's Caffe2/public/cuda.cmake expects the CUDA language and toolkit to be set up.
# No nvcc is a configuration error, never a silent CPU-only build (docs/cell-contract.md).
include_guard(GLOBAL)

if(NOT OPMATRIX_WITH_CUDA)
  return()
endif()

# Toolkit root: $OPMATRIX_CUDA_ROOT (the cell contract) wins, then -DCUDAToolkit_ROOT.
set(_opmatrix_cuda_root "")
if(DEFINED ENV{OPMATRIX_CUDA_ROOT} AND NOT "$ENV{OPMATRIX_CUDA_ROOT}" STREQUAL "")
  set(_opmatrix_cuda_root "$ENV{OPMATRIX_CUDA_ROOT}")
  set(_opmatrix_cuda_root_from "OPMATRIX_CUDA_ROOT")
elseif(CUDAToolkit_ROOT)
  set(_opmatrix_cuda_root "${CUDAToolkit_ROOT}")
  set(_opmatrix_cuda_root_from "CUDAToolkit_ROOT")
endif()

if(_opmatrix_cuda_root AND NOT CMAKE_CUDA_COMPILER)
  if(NOT EXISTS "${_opmatrix_cuda_root}/bin/nvcc")
    message(FATAL_ERROR
      "opmatrix: OPMATRIX_WITH_CUDA=ON, but ${_opmatrix_cuda_root_from}=${_opmatrix_cuda_root} "
      "has no bin/nvcc.\n"
      "Fix: point ${_opmatrix_cuda_root_from} at a CUDA toolkit root (the folder holding "
      "bin/nvcc, include/cuda_runtime.h, lib64/), or configure with -DOPMATRIX_WITH_CUDA=OFF "
      "for a CPU-only cell.")
  endif()
  set(CMAKE_CUDA_COMPILER "${_opmatrix_cuda_root}/bin/nvcc" CACHE FILEPATH "CUDA compiler" FORCE)
endif()
if(_opmatrix_cuda_root)
  # torch's cuda.cmake runs find_package(CUDAToolkit): make it find the same toolkit.
  set(CUDAToolkit_ROOT "${_opmatrix_cuda_root}" CACHE PATH "CUDA toolkit root" FORCE)
endif()

include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(FATAL_ERROR
    "opmatrix: OPMATRIX_WITH_CUDA=ON, but no working CUDA compiler (nvcc) was found "
    "(looked at $OPMATRIX_CUDA_ROOT, -DCUDAToolkit_ROOT, -DCMAKE_CUDA_COMPILER and PATH).\n"
    "Fix: set OPMATRIX_CUDA_ROOT=/path/to/cuda (containing bin/nvcc), or pass "
    "-DCUDAToolkit_ROOT=/path/to/cuda, or configure with -DOPMATRIX_WITH_CUDA=OFF for a "
    "CPU-only cell.")
endif()

if(OPMATRIX_CUDA_ARCHS)
  set(CMAKE_CUDA_ARCHITECTURES "${OPMATRIX_CUDA_ARCHS}")
endif()
enable_language(CUDA)
# nvcc's host compiler can be an older g++ than the C++ compiler (Debian trixie: nvcc 12.4
# drives g++-13 while c++ is g++ 14). CMake adds CUDA's implicit link folders to the link of a
# mixed target, and g++-13's libstdc++ folder then shadows g++ 14's: objects from g++ 14 fail
# with "undefined reference to __cxa_call_terminate". Keep only the C++ compiler's gcc folder.
foreach(_dir IN LISTS CMAKE_CUDA_IMPLICIT_LINK_DIRECTORIES)
  if(_dir MATCHES "/gcc/" AND NOT _dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    list(REMOVE_ITEM CMAKE_CUDA_IMPLICIT_LINK_DIRECTORIES "${_dir}")
    message(STATUS "opmatrix: not linking against ${_dir} (nvcc's host compiler; C++ uses another g++)")
  endif()
endforeach()
# CMake < 3.26 does not know nvcc >= 12 accepts -std=c++20, and refuses CUDA sources in a
# target whose torch demands C++20 (pip torch >= 2.10 sets cxx_std_20). Teach it.
if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION AND CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA"
   AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
endif()
if(NOT OPMATRIX_CUDA_ARCHS)
  # nvcc's own default (what enable_language(CUDA) detected), written down so that the
  # archs torch is told about and the archs we compile for are the same list.
  set(OPMATRIX_CUDA_ARCHS "${CMAKE_CUDA_ARCHITECTURES_DEFAULT}")
  if(NOT OPMATRIX_CUDA_ARCHS)
    set(OPMATRIX_CUDA_ARCHS "${CMAKE_CUDA_ARCHITECTURES}")
  endif()
endif()
# Keep only the numbers (CMake allows 90-real / 90-virtual): torch wants 9.0 style.
set(_opmatrix_torch_archs "")
foreach(_arch IN LISTS OPMATRIX_CUDA_ARCHS)
  string(REGEX MATCH "^[0-9]+" _num "${_arch}")
  if(_num)
    string(LENGTH "${_num}" _len)
    math(EXPR _major_len "${_len} - 1")
    string(SUBSTRING "${_num}" 0 ${_major_len} _major)
    string(SUBSTRING "${_num}" ${_major_len} 1 _minor)
    # torch before 2.7 parses only one-digit majors (select_compute_arch.cmake: "Unknown CUDA
    # Architecture Name 10.0 in CUDA_SELECT_NVCC_ARCH_FLAGS", a configure error beside CUDA 13's
    # nvcc, which targets sm_100), and torch is not found yet to ask its version: its flags are
    # stripped anyway, so it is told only those.
    if(_major_len EQUAL 1)
      list(APPEND _opmatrix_torch_archs "${_major}.${_minor}")
    endif()
  endif()
endforeach()
# torch's cuda.cmake turns TORCH_CUDA_ARCH_LIST into -gencode flags; tell it the same archs
# (so its messages agree, but for those it cannot parse), and OpmatrixTorch.cmake strips those
# flags again afterwards so the CUDA_ARCHITECTURES property is the single source of truth.
set(TORCH_CUDA_ARCH_LIST "${_opmatrix_torch_archs}")
set(ENV{TORCH_CUDA_ARCH_LIST} "${_opmatrix_torch_archs}")
message(STATUS "opmatrix: CUDA ${CMAKE_CUDA_COMPILER_VERSION} at ${CMAKE_CUDA_COMPILER}, "
               "archs ${OPMATRIX_CUDA_ARCHS} (torch told TORCH_CUDA_ARCH_LIST=${_opmatrix_torch_archs})")
