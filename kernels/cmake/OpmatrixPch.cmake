# Precompiled headers for the targets that parse torch's headers in every translation unit.
# Parsing <ATen/core/Tensor.h> + <torch/library.h> (+ <torch/autograd.h>) is most of a kernel
# TU's compile time (trixie g++ 14: 8 of 9.5 s for meta/nms_kernel.cpp, 18 of 32 s for
# autograd/roi_align_kernel.cpp); a PCH pays it once per build tree (bench/RESULTS.md).
# GCC silently falls back to the plain headers when a PCH does not fit a TU's flags, so a
# PCH can never change what is built, only how fast.
#
#   opmatrix_kernels_use_pch(<target>)     the op library's own PCH (C++ sources only)
#   opmatrix_kernels_unity_by_op(<target>) one TU per op for its C++ sources
#   opmatrix_ccache_pch_sloppiness(<target>)
include_guard(GLOBAL)

option(OPMATRIX_PCH "precompile the torch headers once per target family (kernels, cases)" ON)

# ccache refuses to cache a compile that uses a PCH unless told the PCH's macros and time
# stamps do not matter (it then hashes the .gch itself): without this every PCH-using TU would
# miss the ccache the cells share.
function(opmatrix_ccache_pch_sloppiness target)
  get_target_property(_launcher ${target} CXX_COMPILER_LAUNCHER)
  if(_launcher AND _launcher MATCHES "ccache")
    set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER
      "${CMAKE_COMMAND};-E;env;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;${_launcher}")
  endif()
endfunction()

# The torch headers the kernels include, as tensor_api.h chooses them for the full ABI, plus
# the dispatcher and autograd headers some kernels add. Every torch opmatrix builds against
# (1.13 on) has each of them. CUDA sources compile without it (nvcc has no GCC PCH).
function(opmatrix_kernels_use_pch target)
  if(NOT OPMATRIX_PCH)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE
    "$<$<COMPILE_LANGUAGE:CXX>:${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../ops/tensor_api.h>"
    "$<$<COMPILE_LANGUAGE:CXX>:<ATen/Dispatch.h$<ANGLE-R>>"
    "$<$<COMPILE_LANGUAGE:CXX>:<ATen/core/dispatch/Dispatcher.h$<ANGLE-R>>"
    "$<$<COMPILE_LANGUAGE:CXX>:<torch/autograd.h$<ANGLE-R>>")
  opmatrix_ccache_pch_sloppiness(${target})
endfunction()

# Even with the PCH, each TU re-instantiates and optimises the torch inline code it uses
# (Tensor methods, the dispatcher's call path, autograd's Function machinery): about 4 s per
# TU at -O3. One op's schema, CPU, Meta, Autograd and CUDA host sources (ops/<op>.cpp,
# ops/<backend>/<op>_kernel.cpp) compile as one unity TU: they share those instantiations,
# and their file-local names were written apart (anonymous namespaces per file would clash
# across ops, e.g. each op's `Geometry`, so ops never share a TU). The device code
# (ops/cuda/<op>_device.cu) and helpers such as cpu/gemm.cpp stay on their own.
# OPMATRIX_UNITY=OFF compiles every file alone.
option(OPMATRIX_UNITY "compile the sources of one op (kernels) and of one helper library (cases) as one TU" ON)
function(opmatrix_kernels_unity_by_op target)
  if(NOT OPMATRIX_UNITY)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  get_target_property(_sources ${target} SOURCES)
  foreach(_source IN LISTS _sources)
    set(_op "")
    if(_source MATCHES "/ops/([a-z0-9_]+)\\.cpp$")
      set(_op "${CMAKE_MATCH_1}")
    elseif(_source MATCHES "/ops/(cpu|meta|autograd|cuda)/([a-z0-9_]+)_kernel\\.cpp$")
      set(_op "${CMAKE_MATCH_2}")
    endif()
    if(_op)
      set_property(SOURCE "${_source}" TARGET_DIRECTORY ${target} PROPERTY UNITY_GROUP "op_${_op}")
    endif()
  endforeach()
endfunction()
