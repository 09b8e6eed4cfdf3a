# opmatrix_add_case(<family> <source.cpp>) and opmatrix_add_case_binary(): every case is added the
# same way.
#  - ONE executable, opmatrix_cases, holds every case's tests: its sources compile as one unity TU
#    per family (correctness, gradient, meta, …: the cases of one family share the torch and gtest
#    code they instantiate, about half the compile of one TU each), and it links once;
#  - each case is a symlink to it named after its source file (nms_correctness), and main()
#    (common/test_main.cpp) runs only the tests defined in the file its name names: the case's
#    command, its JSON and its crash stay its own, as when each case was a binary of its own;
#  - it does NOT link libopmatrix_ops.so but dlopens it at run time (cases/common/library.h), so a
#    library that fails to load is a failing test with the demangled dlerror, not a binary that
#    cannot start;
#  - ONE CTest test per case, named after it: one process loads libtorch once for all of the
#    case's tests (one process per test spent ~2 s per test loading libtorch). The per-test
#    verdicts come from the JSON gtest writes (GTEST_OUTPUT=json:<dir>/) and, when the
#    process crashed or timed out, from its console output in ctest's log plus the
#    <dir>/<case>.list file test_main.cpp writes first (harness/src/results/test_outcomes.cpp);
#  - CTest labels `cases` and <family>;
#  - compiled at the cases' optimisation level with their precompiled header
#    (opmatrix_cases_target below).
include_guard(GLOBAL)

# Every case source includes <ATen/ATen.h> and <gtest/gtest.h>: about half of each TU's
# compile time before a line of the test is read (trixie g++ 14: ~15 s, 0.6 GB of a 20-45 s
# TU). One precompiled header shared by every case target (REUSE_FROM) pays that once per
# build tree; see bench/RESULTS.md for the measured effect. OPMATRIX_PCH=OFF turns it off
# (kernels/cmake/OpmatrixPch.cmake).
# GCC refuses a PCH built with other code-generation flags ("created and used with different
# settings of -fpie"), and CMake compiles libraries with -fPIC, executables with -fPIE: every
# case target compiles with -fPIC instead (the binaries still link as PIE), so the first one
# precompiles and all the others reuse it.
set_property(GLOBAL PROPERTY OPMATRIX_CASES_PCH_OWNER "")

function(opmatrix_cases_use_pch target)
  if(NOT OPMATRIX_PCH)
    return()
  endif()
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE OFF)
  target_compile_options(${target} PRIVATE -fPIC)
  get_property(_owner GLOBAL PROPERTY OPMATRIX_CASES_PCH_OWNER)
  # The PCH holds gtest.h, built with gtest's include path and GTEST_HAS_PTHREAD: every
  # target using it needs the same (opmatrix_reference does not use gtest otherwise).
  target_link_libraries(${target} PRIVATE gtest)
  if(_owner)
    target_precompile_headers(${target} REUSE_FROM ${_owner})
  else()
    target_precompile_headers(${target} PRIVATE <ATen/ATen.h> <gtest/gtest.h>)
    set_property(GLOBAL PROPERTY OPMATRIX_CASES_PCH_OWNER ${target})
  endif()
  opmatrix_ccache_pch_sloppiness(${target})
endfunction()

# The cases are test code: they call the kernels (-O3, in libopmatrix_ops.so) and compare them
# with the references; their own code needs no more than -O1, which compiles a case TU in about
# 60 % of -O3's time (bench/compile/README.md). The kernels keep -O3: they are what is timed.
set(OPMATRIX_CASES_OPT_LEVEL "-O1" CACHE STRING "optimisation flag of cases/' own code (the kernels stay -O3)")

# Every target of cases/ that links torch: its optimisation level, then the shared PCH (whose
# flags must be the same in every target that reuses it, -O level included).
function(opmatrix_cases_target target)
  target_compile_options(${target} PRIVATE ${OPMATRIX_CASES_OPT_LEVEL})
  opmatrix_cases_use_pch(${target})
endfunction()

set(OPMATRIX_CASE_TIMEOUT 1200 CACHE STRING "seconds one case binary (all of its tests) may run")

set_property(GLOBAL PROPERTY OPMATRIX_CASES "")

function(opmatrix_add_case family source)
  get_filename_component(name "${source}" NAME_WE)
  set_property(GLOBAL APPEND PROPERTY OPMATRIX_CASES "${family}|${name}|${source}")
endfunction()

# The one executable of every case added so far, and a symlink and a CTest test per case.
function(opmatrix_add_case_binary)
  get_property(_cases GLOBAL PROPERTY OPMATRIX_CASES)
  set(_sources "")
  foreach(_case IN LISTS _cases)
    string(REPLACE "|" ";" _parts "${_case}")
    list(GET _parts 2 _source)
    list(APPEND _sources "${_source}")
  endforeach()
  add_executable(opmatrix_cases ${_sources})
  target_link_libraries(opmatrix_cases PRIVATE opmatrix_cases_main opmatrix_cases_common opmatrix_reference gtest)
  opmatrix_torch_settings(opmatrix_cases)
  add_dependencies(opmatrix_cases opmatrix_ops)
  opmatrix_cases_target(opmatrix_cases)
  if(OPMATRIX_UNITY)
    set_target_properties(opmatrix_cases PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  endif()
  foreach(_case IN LISTS _cases)
    string(REPLACE "|" ";" _parts "${_case}")
    list(GET _parts 0 _family)
    list(GET _parts 1 _name)
    list(GET _parts 2 _source)
    set_property(SOURCE "${_source}" TARGET_DIRECTORY opmatrix_cases PROPERTY UNITY_GROUP "cases_${_family}")
    add_custom_command(TARGET opmatrix_cases POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E create_symlink opmatrix_cases "$<TARGET_FILE_DIR:opmatrix_cases>/${_name}"
      VERBATIM)
    add_test(NAME ${_name} COMMAND "$<TARGET_FILE_DIR:opmatrix_cases>/${_name}")
    set_tests_properties(${_name} PROPERTIES LABELS "cases;${_family}" TIMEOUT ${OPMATRIX_CASE_TIMEOUT})
  endforeach()
endfunction()
