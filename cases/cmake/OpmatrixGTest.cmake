# GoogleTest compiled from sources inside the cases build, with torch's
# _GLIBCXX_USE_CXX11_ABI: pip torch < 2.7 uses ABI 0, so a distribution's prebuilt
# libgtest (ABI 1) would not link with test code compiled against it.
include_guard(GLOBAL)

set(OPMATRIX_GTEST_SOURCE_DIR "/usr/src/googletest" CACHE PATH
  "GoogleTest sources (Debian package googletest)")
if(NOT EXISTS "${OPMATRIX_GTEST_SOURCE_DIR}/CMakeLists.txt")
  message(FATAL_ERROR "opmatrix: no GoogleTest sources at ${OPMATRIX_GTEST_SOURCE_DIR}.\n"
    "Fix: install Debian's `googletest` package, or pass -DOPMATRIX_GTEST_SOURCE_DIR=<dir>.")
endif()

set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
set(gtest_force_shared_crt ON CACHE BOOL "" FORCE)
add_subdirectory("${OPMATRIX_GTEST_SOURCE_DIR}" "${CMAKE_BINARY_DIR}/googletest" EXCLUDE_FROM_ALL)
foreach(_gtest_target gtest gtest_main)
  target_compile_options(${_gtest_target} PUBLIC ${OPMATRIX_TORCH_CXX_FLAGS})
  # Test framework code, compiled once per build tree: the cases' level is enough (gtest-all.cc
  # is the largest TU of a cold build after the PCHs).
  target_compile_options(${_gtest_target} PRIVATE ${OPMATRIX_CASES_OPT_LEVEL})
  set_target_properties(${_gtest_target} PROPERTIES
    CXX_STANDARD ${OPMATRIX_CXX_STANDARD} CXX_STANDARD_REQUIRED ON)
endforeach()
include(GoogleTest)
