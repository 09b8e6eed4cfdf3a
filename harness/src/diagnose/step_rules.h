// The rules diagnose_step tries on a failed step's log, in families (one file each): what the
// machine or image lacks, what the code needs of its torch, which C++ API of torch a compile error
// is about, what the compiler and linker say.
// Internal to diagnose/.
#pragma once

#include <regex>
#include <string>
#include <vector>

#include "diagnose/diagnose.h"

namespace opmatrix::step_rules {

// What a rule found in the log.
struct Evidence {
  std::string line;  // the log line (or lines) that show the failure: the diagnosis quotes it
  std::smatch m;     // the rule's pattern matched on `line` (it refers into `line`: never copy an Evidence)
  std::string what;  // what a rule's own finder read: an API, a missing prerequisite, an exception
  std::string how;   // and, for a prerequisite, how an image gets it
  std::string rest;  // what else the log shows that the finding does not explain, one per line
  bool in_builtin_images = true;  // and whether opmatrix's own Containerfiles install it (git: not yet)
};

using Finder = bool (*)(const std::string& log, Evidence& e);
// Fills kind, summary and fix; d.evidence already holds e.line, which explain may shorten.
using Explainer = void (*)(const StepFailure& f, const Evidence& e, Diagnosis& d);

struct StepRule {
  std::regex pattern;  // the first log line it matches is the evidence (unused where `find` is set)
  Finder find;         // for what one line's pattern cannot say; nullptr: `pattern`
  Explainer explain;
};

// A rule whose evidence is the first log line `pattern` matches.
StepRule line_rule(const char* pattern, Explainer explain);
// A rule that reads the log itself.
StepRule own_rule(Finder find, Explainer explain);

// Whether `rule` finds its evidence in `log`.
bool finds(const StepRule& rule, const std::string& log, Evidence& e);

// The families, each in the order its rules are tried (diagnose.cpp tries the families in this
// order too): the first rule that finds its evidence explains the failure.
const std::vector<StepRule>& environment_rules();  // the machine or the cell image lacks something
const std::vector<StepRule>& torch_rules();        // the code and its torch disagree
const std::vector<StepRule>& torch_cxx_api_rules();  // a compile error from a C++ API torch removed
const std::vector<StepRule>& toolchain_rules();    // compile, link and configure errors

// Helpers the families share.
std::vector<std::string> lines_of(const std::string& text);
// The text of a line without the indentation pip adds to a subprocess's output.
std::string trimmed(const std::string& s);
// The first line matching `re` (in `line`) and the match itself (in `m`, referring into `line`).
bool find_line(const std::string& text, const std::regex& re, std::string& line, std::smatch& m);

}  // namespace opmatrix::step_rules
