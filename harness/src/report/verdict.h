// What a cell comes to for the people who use its torch, in words they act on. Every format
// (Markdown, HTML, JSON, JUnit, the step summary, `opmatrix diff`) shows this one verdict.
//
// The rules, from the check registry (CheckSpec::weighs, CheckSpec::unexecuted):
//  - a check that weighs `breaks` and does not pass, expected or not: the cell is broken, and
//    that result's message is the reason; where every break is declared in matrix.yaml, it
//    reads "✘ known broken (declared)" with the declared reasons (CI stays green);
//  - a check that weighs `limits` (one arch; one of PyTorch's tools) and does not pass: the cell
//    works with a limit, named ("no sm_100, sm_120 code", "nms: compile, fake-device"), unless
//    the op returned a wrong result (CheckSpec::wrong_result_kinds): that breaks the cell;
//  - a skip of a check that needs a GPU, in a cell that promises CUDA: a limit ("CUDA kernels not
//    executed (no GPU here)"), never a pass;
//  - any other skip means the check does not apply there.
// Whether the results are the ones matrix.yaml declares is a separate fact (`as_declared`): it
// gates a run, it does not make a broken cell work or a working one broken.
#pragma once

#include <string>
#include <vector>

#include "results/cell_result.h"

namespace opmatrix {

enum class Verdict { works, works_with_limits, broken, not_run };

struct CellVerdict {
  Verdict verdict = Verdict::works;
  std::vector<std::string> broken;  // what breaks, one line per failing result
  std::vector<std::string> limits;  // each limit, named
  std::string not_run;              // why the cell did not run
  bool as_declared = true;          // matrix.yaml's expectations met
  // Broken, and every break is one matrix.yaml declares (`expect:` means "known broken", never
  // "by design": what a library does not promise belongs in its promises, which make no red).
  bool known_broken = true;
};

CellVerdict assess(const CellResult& r);

// How one result counts, by its check's `weighs` (an unknown check breaks): not at all (pass,
// xpass, skip — what a skip means depends on the cell: assess), as a limit, or as a break.
// A result whose diagnosis is one of its check's wrong_result_kinds breaks, whatever the check weighs.
enum class Weight { none, limits, breaks };
Weight weight_of(const CheckResult& c);
bool wrong_result(const CheckResult& c);

const char* verdict_symbol(Verdict v);  // "✔ works", "◐ works with limits", "✘ broken", "○ not run"
const char* verdict_class(Verdict v);   // CSS class and JSON word: pass, limits, fail, notrun
// Which of two verdicts a table entry that holds both shows: broken > limits > works > not run.
bool worse(Verdict a, Verdict b);

// The verdict in one line: its symbol, then up to `items` reasons ("+N more" after them), then
// "‼ not as declared" when the expectations were not met. items = 0: the symbol alone.
std::string verdict_line(const CellVerdict& v, std::size_t items);
// How many reasons a table entry names (the cell's section names all).
inline constexpr std::size_t kTableItems = 3;

nlohmann::json to_json(const CellVerdict& v);

}  // namespace opmatrix
