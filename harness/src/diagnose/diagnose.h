// Explains failures in plain words, with the fix and a command that shows them again.
// Recognises the errors users actually meet (the five user-reported failures of docs/checks.md,
// build errors, and what real extensions' setup.py builds end in).
#pragma once

#include <optional>
#include <string>

#include "results/cell_result.h"
#include "results/test_outcomes.h"

namespace opmatrix {

struct StepFailure {
  std::string step;     // configure, build, test, probe, image
  std::string log;      // the step's log text
  int exit_code = 0;
  int signal = 0;
  bool timed_out = false;
  double timeout_s = 0;
  std::string repro;    // the command that ran
};

Diagnosis diagnose_step(const StepFailure& failure);
Diagnosis diagnose_test(const TestOutcome& test, const std::string& repro);

// setup.py stopping its build where no GPU is visible (it tests torch.cuda.is_available() at build
// time): kind setup_needs_gpu, the summary with `evidence`, the fix.
void explain_setup_needs_gpu(const std::string& evidence, Diagnosis& d);

// The demangled form of an Itanium C++ symbol (`_ZN3c10…`), or the input unchanged.
std::string demangle(const std::string& symbol);

// Every `undefined symbol: X` in a text, demangled, at most `limit` of them.
std::string undefined_symbols_in(const std::string& text, int limit = 3);

}  // namespace opmatrix
