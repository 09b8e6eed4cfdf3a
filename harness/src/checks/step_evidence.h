// What a check's judge is told of the step it judges, beside the step's JSON: whose step it
// was, the command that shows it again, its log and how long it took. The judges that are pure
// functions of JSON (fetch, requirements) take it, so that each names them the same way.
#pragma once

#include <string>

namespace opmatrix {

struct StepEvidence {
  std::string project;  // "pypi torch-scatter==2.1.2"
  std::string repro;    // the command that shows it again
  std::string log;      // the step's log (evidence)
  double seconds = 0;
};

}  // namespace opmatrix
