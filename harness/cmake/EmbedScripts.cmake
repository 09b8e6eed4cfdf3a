# Writes a header holding the in-cell Python scripts as string literals, so `opmatrix doctor`
# works from any folder without the repository around it.
#   cmake -DOUT=header -DPROBE=probe.py -DTORCHVISION=torchvision_registrations.py -P EmbedScripts.cmake
file(READ "${PROBE}" probe)
file(READ "${TORCHVISION}" torchvision)
foreach(text probe torchvision)
  string(FIND "${${text}}" ")opmatrix_py\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${text} script contains the raw-string delimiter")
  endif()
endforeach()
file(WRITE "${OUT}.tmp" "// Generated from scripts/cell by harness/cmake/EmbedScripts.cmake; do not edit.\n#pragma once\nnamespace opmatrix {\ninline constexpr const char* kProbePy = R\"opmatrix_py(${probe})opmatrix_py\";\ninline constexpr const char* kTorchvisionPy = R\"opmatrix_py(${torchvision})opmatrix_py\";\n}  // namespace opmatrix\n")
file(RENAME "${OUT}.tmp" "${OUT}")
