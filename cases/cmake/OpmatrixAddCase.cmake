# opmatrix_add_case(<family> <source.cpp>): every test binary is added the same way.
#  - binary named after the source file (nms_correctness), linked with the cases' own main
#    (common/test_main.cpp: gtest_main + the list of tests it will run), the shared helpers
#    and the references; it does NOT link libopmatrix_ops.so but dlopens it at run time
#    (cases/common/library.h), so a library that fails to load is a failing test with the
#    demangled dlerror, not a binary that cannot start;
#  - ONE CTest test per binary, named after it: one process loads libtorch once for all its
#    tests (one process per test spent ~2 s per test loading libtorch). The per-test
#    verdicts come from the JSON gtest writes (GTEST_OUTPUT=json:<dir>/) and, when the
#    process crashed or timed out, from its console output in ctest's log plus the
#    <dir>/<binary>.list file test_main.cpp writes first (harness/src/results/test_outcomes.cpp);
#  - CTest labels `cases` and <family>;
#  - compiled with the cases' precompiled header (opmatrix_cases_use_pch below).
include_guard(GLOBAL)

# Every case source includes <ATen/ATen.h> and <gtest/gtest.h>: about half of each TU's
# compile time before a line of the test is read (trixie g++ 14: ~15 s, 0.6 GB of a 20-45 s
# TU). A precompiled header shared by the case targets (REUSE_FROM) pays that once per
# build tree; see bench/RESULTS.md for the measured effect. GCC silently falls back to the
# plain headers if the PCH does not fit a TU's flags, so it can never change what is built.
option(OPMATRIX_CASES_PCH "precompile <ATen/ATen.h> + <gtest/gtest.h> once for all case targets" ON)
# Two owners, because GCC refuses a PCH built with other code-generation flags ("created and
# used with different settings of -fpie"): the libraries compile with -fPIC, the test
# binaries with -fPIE. The first target of each kind precompiles; the rest REUSE_FROM it.
set_property(GLOBAL PROPERTY OPMATRIX_CASES_PCH_OWNER_LIBRARY "")
set_property(GLOBAL PROPERTY OPMATRIX_CASES_PCH_OWNER_EXECUTABLE "")

function(opmatrix_cases_use_pch target)
  if(NOT OPMATRIX_CASES_PCH)
    return()
  endif()
  get_target_property(_type ${target} TYPE)
  set(_slot OPMATRIX_CASES_PCH_OWNER_LIBRARY)
  if(_type STREQUAL "EXECUTABLE")
    set(_slot OPMATRIX_CASES_PCH_OWNER_EXECUTABLE)
  endif()
  get_property(_owner GLOBAL PROPERTY ${_slot})
  # The PCH holds gtest.h, built with gtest's include path and GTEST_HAS_PTHREAD: every
  # target using it needs the same (opmatrix_reference does not use gtest otherwise).
  target_link_libraries(${target} PRIVATE gtest)
  if(_owner)
    target_precompile_headers(${target} REUSE_FROM ${_owner})
  else()
    target_precompile_headers(${target} PRIVATE <ATen/ATen.h> <gtest/gtest.h>)
    set_property(GLOBAL PROPERTY ${_slot} ${target})
  endif()
  _opmatrix_ccache_pch_sloppiness(${target})
endfunction()

# ccache refuses to cache a compile that uses a PCH unless told the PCH's macros and time
# stamps do not matter (it then hashes the .gch itself): without this every case TU would
# miss the shared ccache of the cells.
function(_opmatrix_ccache_pch_sloppiness target)
  get_target_property(_launcher ${target} CXX_COMPILER_LAUNCHER)
  if(_launcher AND _launcher MATCHES "ccache")
    set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER
      "${CMAKE_COMMAND};-E;env;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;${_launcher}")
  endif()
endfunction()

set(OPMATRIX_CASE_TIMEOUT 1200 CACHE STRING "seconds one case binary (all of its tests) may run")

function(opmatrix_add_case family source)
  get_filename_component(name "${source}" NAME_WE)
  add_executable(${name} "${source}")
  target_link_libraries(${name} PRIVATE opmatrix_cases_main opmatrix_cases_common opmatrix_reference gtest)
  opmatrix_torch_settings(${name})
  add_dependencies(${name} opmatrix_ops)
  opmatrix_cases_use_pch(${name})

  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "cases;${family}" TIMEOUT ${OPMATRIX_CASE_TIMEOUT})
endfunction()
