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
#  - CTest labels `cases` and <family>.
include_guard(GLOBAL)

set(OPMATRIX_CASE_TIMEOUT 1200 CACHE STRING "seconds one case binary (all of its tests) may run")

function(opmatrix_add_case family source)
  get_filename_component(name "${source}" NAME_WE)
  add_executable(${name} "${source}")
  target_link_libraries(${name} PRIVATE opmatrix_cases_main opmatrix_cases_common opmatrix_reference gtest)
  opmatrix_torch_settings(${name})
  add_dependencies(${name} opmatrix_ops)

  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "cases;${family}" TIMEOUT ${OPMATRIX_CASE_TIMEOUT})
endfunction()
