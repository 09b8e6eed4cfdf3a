// What a judge of a script that prints {"ok": false, "error": KIND, "message": ...} makes of a
// failure: the kind and words the script printed, or, where it printed none, the time limit's or
// the exit status's words; the step's command and log as its reproduction and evidence.
#pragma once

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checks/step_evidence.h"
#include "results/cell_result.h"
#include "util/json_fields.h"

namespace opmatrix {

struct SilentScript {
  std::string script;        // "fetch_pypi.py"
  std::string timeout_kind;  // the kind of a run past its limit ("network")
  std::string timeout_words; // "the download from PyPI ran past its time limit"
  std::string other_kind;    // the kind of any other run that printed nothing ("fetch_error")
};

inline Diagnosis script_failure(const nlohmann::json& report, const StepEvidence& step, bool timed_out, int exit_code,
                                const SilentScript& silent) {
  Diagnosis d;
  d.kind = json_text(report, "error");
  d.summary = json_text(report, "message");
  if (d.kind.empty()) d.kind = timed_out ? silent.timeout_kind : silent.other_kind;
  if (d.summary.empty())
    d.summary = timed_out ? silent.timeout_words
                          : fmt::format("{} printed no result (exit {}; see the log)", silent.script, exit_code);
  d.repro = step.repro;
  d.evidence = step.log.substr(0, 2000);
  return d;
}

}  // namespace opmatrix
