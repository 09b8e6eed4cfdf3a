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

# bench/gpu/check_cuda.py's comparisons, run on the CPU against torchvision's CPU ops with the
# library and Python module the host cell built (on a GPU machine, bench/gpu/run.sh runs it on CUDA).
set_tests_properties(host-cell PROPERTIES FIXTURES_SETUP host-cell-build)
add_test(NAME host-cell-check-on-cpu
  COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/bench/gpu/check_cuda.py --device cpu)
set_tests_properties(host-cell-check-on-cpu PROPERTIES LABELS "host-cell" TIMEOUT 600
  FIXTURES_REQUIRED host-cell-build
  ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1;PYTHONPATH=${CMAKE_BINARY_DIR}/host-cell/work/cells/${OPMATRIX_HOST_CELL}/host-build/kernels")
