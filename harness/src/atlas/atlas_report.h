// The published atlas (docs/atlas/): an index of each library's newest release x every runtime,
// one page per library (release x runtime, each entry linking to its evidence), the library's
// own declared pairing beside the measured one with every disagreement listed, and atlas.json
// (an `opmatrix-report` file, so `opmatrix diff` reads it).
//
// Measured and declared are kept apart: what a release's metadata asks for (its torch
// requirement: the `wheel` check) and what pip would do about it (`install-plan`) are the
// declared side; the measured verdict is every other check (fetch, install, load, import,
// registration, ABI), judged by the report's rules (report/verdict.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "atlas/atlas_file.h"
#include "report/results_set.h"
#include "report/verdict.h"

namespace opmatrix {

// What the release's own metadata says about this runtime's torch.
enum class Declared { accepts, refuses, says_nothing, unknown };

struct AtlasPair {
  std::string id, library, release, runtime;
  const CellResult* result = nullptr;  // nullptr: not measured yet
  CellVerdict measured;                // without the declared side's checks
  Declared declared = Declared::unknown;
  std::string declared_text;           // the wheel check's words ("requires torch==2.5.1 ...")
  std::string pip_text;                // the install-plan check's words
  bool no_wheel = false;               // the release has no wheel for this runtime's Python/platform
  // A result the infrastructure did not keep from being measured (an image that could not be
  // built, the network: status error, to run again) counts as measured; an error does not.
  bool measured_here() const { return result && result->status != Status::error; }
};

struct AtlasView {
  const Atlas* atlas = nullptr;
  std::vector<AtlasPair> pairs;  // the atlas's pair order (runtime-major)
  const AtlasPair* find(const std::string& library, const std::string& release, const std::string& runtime) const;
};

AtlasView view_atlas(const Atlas& atlas, const ResultsSet& results);

// A disagreement between the declared and the measured pairing, in words, or "".
std::string disagreement(const AtlasPair& p);

// File name -> content: index.md, <library>.md per library, atlas.json, and index.html (all of
// it on one self-contained page).
std::map<std::string, std::string> render_atlas(const AtlasView& view, const ResultsSet& results);

}  // namespace opmatrix
