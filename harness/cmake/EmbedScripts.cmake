# Writes a header holding in-cell Python scripts as string literals, so `opmatrix doctor`
# works from any folder without the repository around it: it writes them into a private
# temporary folder and runs them from there (one script may import another, e.g. dispatcher.py).
#   cmake -DOUT=header -DDIR=scripts/cell -DNAMES=probe.py,dispatcher.py,… -P EmbedScripts.cmake
string(REPLACE "," ";" names "${NAMES}")
set(entries "")
foreach(name IN LISTS names)
  file(READ "${DIR}/${name}" text)
  string(FIND "${text}" ")opmatrix_py\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${name} contains the raw-string delimiter )opmatrix_py\"")
  endif()
  string(APPEND entries "    {\"${name}\", R\"opmatrix_py(${text})opmatrix_py\"},\n")
endforeach()
file(WRITE "${OUT}.tmp" "// Generated from scripts/cell by harness/cmake/EmbedScripts.cmake; do not edit.
#pragma once
#include <cstddef>
namespace opmatrix {
struct EmbeddedScript {
  const char* name;  // file name in scripts/cell
  const char* text;
};
inline constexpr EmbeddedScript kEmbeddedScripts[] = {
${entries}};
inline constexpr std::size_t kEmbeddedScriptCount = sizeof(kEmbeddedScripts) / sizeof(kEmbeddedScripts[0]);
}  // namespace opmatrix
")
file(RENAME "${OUT}.tmp" "${OUT}")
