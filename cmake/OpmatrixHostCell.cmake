# The host cell: the matrix cell whose environment this Debian machine already is (its
# libtorch-dev + python3-torch), run with `opmatrix run --engine host`. CTest label host-cell.
set(_suite "")
if(EXISTS /etc/os-release)
  file(STRINGS /etc/os-release _codename REGEX "^VERSION_CODENAME=")
  string(REPLACE "VERSION_CODENAME=" "" _suite "${_codename}")
endif()
set(_default_cell "")
if(_suite STREQUAL "bookworm")
  set(_default_cell bookworm-torch1.13-cpu)
elseif(_suite STREQUAL "trixie")
  set(_default_cell trixie-torch2.6-cpu)
elseif(_suite STREQUAL "sid" OR _suite STREQUAL "forky")
  set(_default_cell sid-torch2.14-cpu)
endif()
set(OPMATRIX_HOST_CELL "${_default_cell}" CACHE STRING "matrix cell this machine's own LibTorch stands for")

if(OPMATRIX_HOST_CELL STREQUAL "")
  message(STATUS "opmatrix: no host cell for Debian suite '${_suite}'; set OPMATRIX_HOST_CELL to add one")
  return()
endif()
add_test(NAME host-cell
  COMMAND opmatrix run --matrix ${PROJECT_SOURCE_DIR}/matrix.yaml --engine host --cell ${OPMATRIX_HOST_CELL}
          --results ${CMAKE_BINARY_DIR}/host-cell/results --work-dir ${CMAKE_BINARY_DIR}/host-cell/work)
# Debian's torch lives in the system Python; `python3` on PATH may be another one.
set_tests_properties(host-cell PROPERTIES LABELS "host-cell" TIMEOUT 3600
  ENVIRONMENT "OPMATRIX_PYTHON=/usr/bin/python3")
