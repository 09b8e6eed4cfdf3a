# `ctest -L matrix`: one CTest test per cell of the default local run (labels `matrix` and
# the cell id), each `opmatrix run --cell ID`, then `matrix-cross-load` (every build loaded in
# every runtime) and a last test (`matrix-report`) that renders the report from what ran. The cell list is read when ctest starts (a TEST_INCLUDE_FILES
# script, like gtest_discover_tests), so editing matrix.yaml needs no reconfigure.
set(OPMATRIX_MATRIX_RESULTS "${PROJECT_SOURCE_DIR}/results" CACHE PATH "results folder for ctest -L matrix")
set(_matrix "${PROJECT_SOURCE_DIR}/matrix.yaml")
file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/opmatrix_matrix_tests.cmake" CONTENT "
set(opmatrix \"$<TARGET_FILE:opmatrix>\")
set(results \"${OPMATRIX_MATRIX_RESULTS}\")
execute_process(COMMAND \"\${opmatrix}\" list --matrix \"${_matrix}\" --where default --json
                OUTPUT_VARIABLE cells RESULT_VARIABLE rc ERROR_VARIABLE why)
if(NOT rc EQUAL 0)
  # An invalid matrix is a failing test that shows the errors, not a silent empty list.
  add_test(matrix-validate \"\${opmatrix}\" validate --matrix \"${_matrix}\")
  set_tests_properties(matrix-validate PROPERTIES LABELS matrix)
  return()
endif()
string(JSON n LENGTH \"\${cells}\")
set(all \"\")
if(n GREATER 0)
  math(EXPR last \"\${n} - 1\")
  foreach(i RANGE \${last})
    string(JSON id GET \"\${cells}\" \${i} id)
    # One compile job per cell: `ctest -L matrix -jN` then runs N cells on N cores, never more.
    add_test(matrix-\${id} \"\${opmatrix}\" run --matrix \"${_matrix}\" --cell \${id} --build-jobs 1
             --results \"\${results}\")
    set_tests_properties(matrix-\${id} PROPERTIES LABELS \"matrix;\${id}\" TIMEOUT 7200 PROCESSORS 1)
    list(APPEND all matrix-\${id})
  endforeach()
endif()
# Every build loaded in every runtime (the ABI table), once all cells are done.
add_test(matrix-cross-load \"\${opmatrix}\" cross-load --matrix \"${_matrix}\" --results \"\${results}\")
set_tests_properties(matrix-cross-load PROPERTIES LABELS matrix DEPENDS \"\${all}\" TIMEOUT 7200 PROCESSORS 1)
add_test(matrix-report \"\${opmatrix}\" report --results \"\${results}\" --format md -o \"\${results}/report.md\")
set_tests_properties(matrix-report PROPERTIES LABELS matrix DEPENDS \"\${all};matrix-cross-load\")
")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${CMAKE_BINARY_DIR}/opmatrix_matrix_tests.cmake")
