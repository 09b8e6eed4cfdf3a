# opmatrix_add_case(<family> <source.cpp>): every test binary is added the same way.
#  - binary named after the source file (nms_correctness), linked with gtest_main, the
#    shared helpers and the references; it does NOT link libopmatrix_ops.so but dlopens it
#    at run time (cases/common/library.h), so a library that fails to load is a failing
#    test with the demangled dlerror, not a binary that cannot start;
#  - tests discovered at test time, one process per test (a crash hits one test only);
#  - CTest labels `cases` and <family>, applied by a TEST_INCLUDE_FILES script because
#    CMake 3.25's gtest_discover_tests keeps only the first of several LABELS.
include_guard(GLOBAL)

function(opmatrix_add_case family source)
  get_filename_component(name "${source}" NAME_WE)
  add_executable(${name} "${source}")
  target_link_libraries(${name} PRIVATE opmatrix_cases_common opmatrix_reference gtest_main gtest)
  opmatrix_torch_settings(${name})
  add_dependencies(${name} opmatrix_ops)

  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 120
    TEST_LIST ${name}_TESTS
    PROPERTIES TIMEOUT 600)

  set(labels_script "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
  file(WRITE "${labels_script}"
    "# Generated: labels for the tests gtest_discover_tests found in ${name}.\n"
    "foreach(_t IN LISTS ${name}_TESTS)\n"
    "  set_tests_properties(\"\${_t}\" PROPERTIES LABELS \"cases;${family}\")\n"
    "endforeach()\n")
  # Appended after gtest_discover_tests' own include file, so ${name}_TESTS is set.
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_script}")
endfunction()
