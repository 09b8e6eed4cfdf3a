// libFuzzer target: the bytes are a matrix.yaml. They go through exactly what
// `opmatrix validate`, `list --json` and `github-matrix` run (load + validate + expand, then
// the JSON every downstream tool reads), so a crash here is a crash a user's typo can cause.
// Relative Containerfile paths resolve against OPMATRIX_FUZZ_BASE_DIR (the repository root,
// baked in at build time) so that valid seeds reach expansion instead of stopping at
// "Containerfile not found".
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/commands.h"
#include "matrix/load.h"
#include "matrix/to_json.h"

#ifndef OPMATRIX_FUZZ_BASE_DIR
#define OPMATRIX_FUZZ_BASE_DIR "."
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opmatrix;
  const std::string text(reinterpret_cast<const char*>(data), size);
  LoadResult r = load_matrix_text(text, "fuzz.yaml", OPMATRIX_FUZZ_BASE_DIR);
  // Formatting every diagnostic: the message text is built from the input (keys, values).
  std::size_t chars = 0;
  for (const auto& d : r.diagnostics) chars += format_diagnostic(d).size();
  if (!r.matrix) return 0;
  for (const auto& cell : r.matrix->cells) {
    // dump() as `list --json` and `github-matrix` call it: it throws on invalid UTF-8, which
    // the CLI does not catch, so the loader must never let such text through.
    chars += cell_to_json(cell).dump(2).size();
    chars += github_job_entry(cell).dump().size();
    for (const char* where : {"local", "github", "gpu", "default", "all"}) chars += cell_selected(cell, where);
    r.matrix->find(cell.id);
  }
  return chars == static_cast<std::size_t>(-1);  // keeps the work from being optimized away
}
