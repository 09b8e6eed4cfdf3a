# Writes a header holding in-cell Python scripts as string literals, so `opmatrix doctor`
# works from any folder without the repository around it: it writes them into a private
# temporary folder and runs them from there (one script may import another, e.g. dispatcher.py).
# The same for other text files the binary carries (the script checks' declarations): VAR and
# TYPE name the array and its element type (defaults kEmbeddedScripts, EmbeddedScript).
#   cmake -DOUT=header -DDIR=scripts/cell -DNAMES=probe.py,dispatcher.py,… [-DVAR=… -DTYPE=…] -P EmbedScripts.cmake
string(REPLACE "," ";" names "${NAMES}")
if(NOT DEFINED VAR)
  set(VAR kEmbeddedScripts)
endif()
if(NOT DEFINED TYPE)
  set(TYPE EmbeddedScript)
endif()
set(entries "")
foreach(name IN LISTS names)
  file(READ "${DIR}/${name}" text)
  string(FIND "${text}" ")opmatrix_py\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${name} contains the raw-string delimiter )opmatrix_py\"")
  endif()
  string(APPEND entries "    {\"${name}\", R\"opmatrix_py(${text})opmatrix_py\"},\n")
endforeach()
file(WRITE "${OUT}.tmp" "// Generated from ${DIR} by harness/cmake/EmbedScripts.cmake; do not edit.
#pragma once
#include <cstddef>
namespace opmatrix {
struct ${TYPE} {
  const char* name;  // file name in its folder
  const char* text;
};
inline constexpr ${TYPE} ${VAR}[] = {
${entries}};
inline constexpr std::size_t ${VAR}Count = sizeof(${VAR}) / sizeof(${VAR}[0]);
}  // namespace opmatrix
")
file(RENAME "${OUT}.tmp" "${OUT}")
