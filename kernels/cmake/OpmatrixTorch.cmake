# find_package(Torch) plus what torch leaves to its consumers: the C++ standard its headers
# need, its _GLIBCXX_USE_CXX11_ABI, and the CUDA promise check.
include_guard(GLOBAL)

if(OPMATRIX_WITH_CUDA)
  # torch's cuda.cmake warns about, then overrides, CMAKE_CUDA_ARCHITECTURES; hide it while
  # torch configures (TORCH_CUDA_ARCH_LIST already says the same) and restore it after.
  set(_opmatrix_saved_cuda_archs "${CMAKE_CUDA_ARCHITECTURES}")
  unset(CMAKE_CUDA_ARCHITECTURES)
  unset(CMAKE_CUDA_ARCHITECTURES CACHE)
endif()
find_package(Torch CONFIG QUIET)
if(OPMATRIX_WITH_CUDA)
  set(CMAKE_CUDA_ARCHITECTURES "${_opmatrix_saved_cuda_archs}" CACHE STRING "CUDA architectures" FORCE)
  unset(CMAKE_CUDA_ARCHITECTURES)
endif()
if(NOT Torch_FOUND)
  message(FATAL_ERROR
    "opmatrix: LibTorch's CMake package (TorchConfig.cmake) was not found.\n"
    "Fix: pass -DCMAKE_PREFIX_PATH=<prefix>: Debian torch -> /usr/lib/x86_64-linux-gnu/cmake, "
    "pip torch -> `python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'`.")
endif()
get_filename_component(OPMATRIX_TORCH_PREFIX "${Torch_DIR}/../../.." ABSOLUTE)
message(STATUS "opmatrix: torch from ${Torch_DIR}")

# TorchConfig.cmake finds c10 with find_library(c10_LIBRARY c10 PATHS <torch>/lib), and
# PATHS come *after* the system paths: on a machine that also has Debian's libtorch, a pip
# torch's build links /usr/lib/x86_64-linux-gnu/libc10.so (1.13) next to its own libc10.so,
# and the library then reads another torch's thread-local state (grad mode, dispatch keys):
# autograd silently stops working. Put every torch library back into the torch found.
if(TORCH_INSTALL_PREFIX)
  set(_opmatrix_torch_libs "")
  foreach(_lib IN LISTS TORCH_LIBRARIES)
    # The CUDA driver (stub) TorchConfig lists directly: see caffe2::cuda below.
    if(_lib STREQUAL "CUDA::cuda_driver" OR _lib MATCHES "(^|/)libcuda\\.so$")
      message(STATUS "opmatrix: not linking ${_lib} from TORCH_LIBRARIES (libcuda.so.1 is loaded lazily)")
      continue()
    endif()
    if(IS_ABSOLUTE "${_lib}" AND _lib MATCHES "/lib(c10|torch|shm)[^/]*\\.so")
      get_filename_component(_dir "${_lib}" DIRECTORY)
      get_filename_component(_real_dir "${_dir}" REALPATH)
      get_filename_component(_own_dir "${TORCH_INSTALL_PREFIX}/lib" REALPATH)
      get_filename_component(_name "${_lib}" NAME)
      # Only where the torch found ships that library itself (Debian's TorchConfig puts its
      # libraries outside <prefix>/lib, and is right to).
      if(NOT _real_dir STREQUAL _own_dir AND EXISTS "${TORCH_INSTALL_PREFIX}/lib/${_name}")
        message(WARNING "opmatrix: TorchConfig.cmake picked ${_lib} from another torch "
          "installation (its find_library searches system paths first); using "
          "${TORCH_INSTALL_PREFIX}/lib/${_name} instead.")
        set(_lib "${TORCH_INSTALL_PREFIX}/lib/${_name}")
      endif()
    endif()
    list(APPEND _opmatrix_torch_libs "${_lib}")
  endforeach()
  set(TORCH_LIBRARIES "${_opmatrix_torch_libs}")
endif()

# torch 2.1's Caffe2 CMake links every consumer with CUDA::cuda_driver (the libcuda stub), so
# each test binary then needs libcuda.so.1 just to start: on a machine without an NVIDIA
# driver nothing runs, not even the tests that would skip with "no GPU". Our code uses only
# the runtime API, and torch itself loads the driver lazily: drop the driver from the link.
if(TARGET caffe2::cuda)
  get_target_property(_opmatrix_cuda_links caffe2::cuda INTERFACE_LINK_LIBRARIES)
  if(_opmatrix_cuda_links AND "CUDA::cuda_driver" IN_LIST _opmatrix_cuda_links)
    list(REMOVE_ITEM _opmatrix_cuda_links CUDA::cuda_driver)
    set_property(TARGET caffe2::cuda PROPERTY INTERFACE_LINK_LIBRARIES "${_opmatrix_cuda_links}")
    message(STATUS "opmatrix: not linking the CUDA driver stub that this torch's CMake adds (libcuda.so.1 is loaded lazily)")
  endif()
endif()

if(OPMATRIX_WITH_CUDA AND NOT TARGET c10_cuda AND NOT TARGET torch_cuda)
  message(FATAL_ERROR
    "opmatrix: OPMATRIX_WITH_CUDA=ON, but the LibTorch found at ${Torch_DIR} was built "
    "without CUDA (USE_CUDA off: it has no c10_cuda / torch_cuda library), so CUDA kernels "
    "could neither be compiled (c10/cuda headers are missing) nor run.\n"
    "Fix: point CMAKE_PREFIX_PATH at a CUDA build of torch (e.g. the pip wheel's "
    "torch.utils.cmake_prefix_path), or configure with -DOPMATRIX_WITH_CUDA=OFF for a "
    "CPU-only cell.")
endif()

# pip torch: libtorch_cuda.so finds NCCL, cuDNN, … in the nvidia-* wheels through its RPATH,
# but when an *executable* is linked, ld searches our -rpath (which holds the toolkit's
# lib/, e.g. /usr/local/cuda/lib with an older libnccl.so.2) first and reports "undefined
# reference to ncclCommGrow". Point -rpath-link at the wheels' folders so ld checks against
# what the loader will really use.
set(OPMATRIX_TORCH_RPATH_LINK "")
if(TORCH_INSTALL_PREFIX AND EXISTS "${TORCH_INSTALL_PREFIX}/../nvidia")
  file(GLOB _wheel_lib_dirs LIST_DIRECTORIES true
       "${TORCH_INSTALL_PREFIX}/../nvidia/*/lib" "${TORCH_INSTALL_PREFIX}/../nvidia/cu*/lib")
  list(REMOVE_DUPLICATES _wheel_lib_dirs)
  list(JOIN _wheel_lib_dirs ":" OPMATRIX_TORCH_RPATH_LINK)
endif()

# pip torch ships its own CUDA runtime (nvidia-cuda-runtime wheel) and its libc10_cuda needs
# symbols of *that* cudart: torch 2.10 (CUDA 12.8) calls cudaGetDriverEntryPointByVersion,
# which cudart 12.4 lacks. Linking the older toolkit's libcudart then fails ("undefined
# reference to cudaGetDriverEntryPointByVersion@libcudart.so.12"), and even where it links,
# the loader would bind both to whichever libcudart.so.12 it finds first. Where the wheel's
# cudart is newer than the toolkit's (same major), link the wheel's: that is the one torch
# loads, and code from an older nvcc runs on a newer runtime of its major.
if(OPMATRIX_WITH_CUDA AND TARGET CUDA::cudart AND TORCH_INSTALL_PREFIX AND CUDAToolkit_VERSION)
  file(GLOB _cudart_dist "${TORCH_INSTALL_PREFIX}/../nvidia_cuda_runtime*-*.dist-info")
  string(REGEX MATCH "^[0-9]+" _toolkit_major "${CUDAToolkit_VERSION}")
  file(GLOB _wheel_cudart "${TORCH_INSTALL_PREFIX}/../nvidia/cuda_runtime/lib/libcudart.so.${_toolkit_major}"
       "${TORCH_INSTALL_PREFIX}/../nvidia/cu${_toolkit_major}/lib/libcudart.so.${_toolkit_major}")
  foreach(_dist IN LISTS _cudart_dist)
    get_filename_component(_dist_name "${_dist}" NAME)
    string(REGEX MATCH "-([0-9]+)\\.([0-9]+)\\.[0-9.]*dist-info$" _ "${_dist_name}")
    set(_wheel_version "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    if(_wheel_cudart AND CMAKE_MATCH_1 STREQUAL _toolkit_major
       AND _wheel_version VERSION_GREATER CUDAToolkit_VERSION)
      list(GET _wheel_cudart 0 _wheel_cudart)
      get_filename_component(_wheel_cudart "${_wheel_cudart}" ABSOLUTE)
      message(STATUS "opmatrix: linking torch's CUDA runtime ${_wheel_cudart} (${_wheel_version}), "
        "newer than the toolkit's (${CUDAToolkit_VERSION}), which torch's libc10_cuda needs")
      set_target_properties(CUDA::cudart PROPERTIES IMPORTED_LOCATION "${_wheel_cudart}")
      foreach(_config IN ITEMS RELEASE DEBUG RELWITHDEBINFO MINSIZEREL NOCONFIG)
        get_target_property(_loc CUDA::cudart IMPORTED_LOCATION_${_config})
        if(_loc)
          set_target_properties(CUDA::cudart PROPERTIES IMPORTED_LOCATION_${_config} "${_wheel_cudart}")
        endif()
      endforeach()
    endif()
  endforeach()
endif()

if(OPMATRIX_WITH_CUDA)
  # Neutralise torch's -gencode flags (from TORCH_CUDA_ARCH_LIST) so the target's
  # CUDA_ARCHITECTURES is the only arch list nvcc sees.
  string(REGEX REPLACE "-gencode[ =]+arch=[^ ]+" "" CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS}")
  string(REGEX REPLACE "  +" " " CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS}")
endif()

# torch's _GLIBCXX_USE_CXX11_ABI (pip torch < 2.7: 0). Targets linking torch inherit it;
# targets that don't (gtest) must get it explicitly or they won't link with torch code.
set(OPMATRIX_TORCH_CXX_FLAGS "")
foreach(_flag IN LISTS TORCH_CXX_FLAGS)
  separate_arguments(_parts UNIX_COMMAND "${_flag}")
  list(APPEND OPMATRIX_TORCH_CXX_FLAGS ${_parts})
endforeach()

# The C++ standard torch's headers require: 17, or 20 where they `#error` on anything
# older (Debian sid torch 2.14.1, pip torch 2.15). Decided by preprocessing torch's own
# umbrella header (where that guard lives) rather than by guessing from version numbers.
if(NOT DEFINED CACHE{OPMATRIX_CXX_STANDARD})
  set(_probe "${CMAKE_BINARY_DIR}/opmatrix_std_probe.cpp")
  file(WRITE "${_probe}" "#include <ATen/ATen.h>\n#include <torch/library.h>\n")
  set(_incs "")
  foreach(_dir IN LISTS TORCH_INCLUDE_DIRS)
    list(APPEND _incs "-I${_dir}")
  endforeach()
  set(_std "")
  foreach(_candidate 17 20 23)
    execute_process(
      COMMAND "${CMAKE_CXX_COMPILER}" -std=c++${_candidate} ${OPMATRIX_TORCH_CXX_FLAGS}
              ${_incs} -E "${_probe}" -o /dev/null
      RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_VARIABLE _err)
    if(_rc EQUAL 0)
      set(_std ${_candidate})
      break()
    endif()
    string(SUBSTRING "${_err}" 0 400 _err_head)
    message(STATUS "opmatrix: torch headers reject C++${_candidate}: ${_err_head}")
  endforeach()
  if(NOT _std)
    message(FATAL_ERROR "opmatrix: the torch headers at ${TORCH_INCLUDE_DIRS} preprocess with "
      "none of -std=c++17/20/23 using ${CMAKE_CXX_COMPILER}; last error:\n${_err}")
  endif()
  set(OPMATRIX_CXX_STANDARD ${_std} CACHE STRING "C++ standard the torch headers require (detected)")
endif()
message(STATUS "opmatrix: C++${OPMATRIX_CXX_STANDARD}, torch flags '${OPMATRIX_TORCH_CXX_FLAGS}'")

# at::parallel_for is a header template: under torch's OpenMP backend (ATen/Config.h:
# AT_PARALLEL_OPENMP 1, Debian's and the pip wheels' builds) it expands to a `#pragma omp
# parallel` compiled into *our* object, so without -fopenmp every kernel loop runs on one
# thread whatever at::set_num_threads says. Compile with OpenMP and link the OpenMP runtime
# torch itself loads (pip wheels bundle theirs in torch/lib: libgomp.so.1, or
# libgomp-<hash>.so.1 before torch 2.6), so that torch's thread count governs our loops too.
set(OPMATRIX_TORCH_OPENMP OFF)
foreach(_dir IN LISTS TORCH_INCLUDE_DIRS)
  if(EXISTS "${_dir}/ATen/Config.h")
    file(STRINGS "${_dir}/ATen/Config.h" _openmp REGEX "^#define AT_PARALLEL_OPENMP 1")
    if(_openmp)
      set(OPMATRIX_TORCH_OPENMP ON)
    endif()
    break()
  endif()
endforeach()
set(OPMATRIX_TORCH_OPENMP_RUNTIME "")
if(OPMATRIX_TORCH_OPENMP)
  find_package(OpenMP COMPONENTS CXX)
  file(GLOB _bundled_gomp "${TORCH_INSTALL_PREFIX}/lib/libgomp*.so*")
  if(_bundled_gomp)
    list(GET _bundled_gomp 0 OPMATRIX_TORCH_OPENMP_RUNTIME)
  elseif(TARGET OpenMP::OpenMP_CXX)
    set(OPMATRIX_TORCH_OPENMP_RUNTIME OpenMP::OpenMP_CXX)
  endif()
  if(OPMATRIX_TORCH_OPENMP_RUNTIME AND OpenMP_CXX_FLAGS)
    message(STATUS "opmatrix: torch parallelises with OpenMP: kernels compiled with ${OpenMP_CXX_FLAGS}, linked to ${OPMATRIX_TORCH_OPENMP_RUNTIME}")
  else()
    message(WARNING "opmatrix: torch parallelises with OpenMP but ${CMAKE_CXX_COMPILER} has no "
      "usable OpenMP: at::parallel_for in the kernels will run on one thread.")
    set(OPMATRIX_TORCH_OPENMP_RUNTIME "")
  endif()
endif()

# Lets at::parallel_for in `target` use torch's intra-op threads (see above).
function(opmatrix_torch_parallel target)
  if(OPMATRIX_TORCH_OPENMP_RUNTIME)
    separate_arguments(_flags UNIX_COMMAND "${OpenMP_CXX_FLAGS}")
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${_flags}>")
    target_link_libraries(${target} PRIVATE "${OPMATRIX_TORCH_OPENMP_RUNTIME}")
  endif()
endfunction()

# What this torch offers for an op whose fake (meta) kernel lives in Python: nms keeps a
# data-dependent number of boxes, which only a Python fake kernel can express (an unbacked size),
# and the C++ library must then say where that kernel lives so that torch accepts it and names it
# in errors. The API's name changed over torch's versions; read the headers rather than guess
# from version numbers. Each row: header | text it declares | definition when present.
set(_opmatrix_torch_header_facts
  "torch/library.h|set_python_module(|OPMATRIX_TORCH_HAS_SET_PYTHON_MODULE"
  "torch/library.h|impl_abstract_pystub(|OPMATRIX_TORCH_HAS_IMPL_ABSTRACT_PYSTUB"
  "ATen/core/dispatch/Dispatcher.h|getPyStub(|OPMATRIX_TORCH_HAS_GET_PYSTUB"
  "ATen/core/dispatch/Dispatcher.h|getAbstractImplPyStub(|OPMATRIX_TORCH_HAS_GET_ABSTRACT_IMPL_PYSTUB")
set(OPMATRIX_TORCH_HEADER_DEFINITIONS "")
foreach(_fact IN LISTS _opmatrix_torch_header_facts)
  string(REPLACE "|" ";" _fact "${_fact}")
  list(GET _fact 0 _header)
  list(GET _fact 1 _text)
  list(GET _fact 2 _definition)
  foreach(_dir IN LISTS TORCH_INCLUDE_DIRS)
    if(EXISTS "${_dir}/${_header}")
      file(READ "${_dir}/${_header}" _content)
      string(FIND "${_content}" "${_text}" _at)
      if(_at GREATER -1)
        list(APPEND OPMATRIX_TORCH_HEADER_DEFINITIONS ${_definition})
      endif()
      break()
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES OPMATRIX_TORCH_HEADER_DEFINITIONS)
message(STATUS "opmatrix: torch header facts: ${OPMATRIX_TORCH_HEADER_DEFINITIONS}")

# The facts as a generated header (opmatrix_torch_facts.h, on every torch target's include
# path) rather than compile definitions: a source with its own definitions cannot join a unity
# build, and a new flag on every compile line would make ccache miss on every file of every
# cell. file(CONFIGURE) rewrites it only when the facts change.
set(OPMATRIX_TORCH_FACTS_DIR "${CMAKE_BINARY_DIR}/opmatrix_torch_facts")
set(_opmatrix_facts_text "// Generated by kernels/cmake/OpmatrixTorch.cmake: what this torch's headers declare.\n#pragma once\n")
foreach(_definition IN LISTS OPMATRIX_TORCH_HEADER_DEFINITIONS)
  string(APPEND _opmatrix_facts_text "#define ${_definition} 1\n")
endforeach()
file(CONFIGURE OUTPUT "${OPMATRIX_TORCH_FACTS_DIR}/opmatrix_torch_facts.h" CONTENT "${_opmatrix_facts_text}" @ONLY)

set(OPMATRIX_NVCC_THREADS 2 CACHE STRING "archs nvcc compiles at once per .cu file (--threads; 1 = one after the other)")

# Applies the cell's torch settings to a target that links torch (library, test, bench).
function(opmatrix_torch_settings target)
  set_target_properties(${target} PROPERTIES
    CXX_STANDARD ${OPMATRIX_CXX_STANDARD}
    CXX_STANDARD_REQUIRED ON
    CXX_EXTENSIONS OFF
    POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${target} PRIVATE "${OPMATRIX_TORCH_FACTS_DIR}")
  if(OPMATRIX_WITH_CUDA)
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${OPMATRIX_CUDA_ARCHS}")
    # nvcc compiles a .cu file's archs one after the other unless told otherwise; the cells
    # build 1-8 archs per file, and with few .cu files the last ones run alone on the cores.
    if(OPMATRIX_NVCC_THREADS GREATER 1 AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 11.2)
      target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--threads=${OPMATRIX_NVCC_THREADS}>")
    endif()
    if(DEFINED CMAKE_CUDA${OPMATRIX_CXX_STANDARD}_STANDARD_COMPILE_OPTION)
      set_target_properties(${target} PROPERTIES
        CUDA_STANDARD ${OPMATRIX_CXX_STANDARD} CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF)
    else()
      # CMake < 3.26 does not know nvcc's C++20 flag: pass it directly.
      target_compile_options(${target} PRIVATE
        "$<$<COMPILE_LANGUAGE:CUDA>:-std=c++${OPMATRIX_CXX_STANDARD}>")
    endif()
  endif()
  # Debian's linker defaults to --as-needed: a library used only through static op
  # registration (or libtorch_cuda, only through its registrations) would be dropped.
  target_link_options(${target} PRIVATE "LINKER:--no-as-needed")
  if(OPMATRIX_TORCH_RPATH_LINK)
    target_link_options(${target} PRIVATE "LINKER:-rpath-link,${OPMATRIX_TORCH_RPATH_LINK}")
  endif()
  target_link_libraries(${target} PRIVATE ${TORCH_LIBRARIES})
endfunction()
