// What a long build or test step is doing, read from its log line by line, for the line a run
// prints every 10 s (run/log_ticker.h): a PyPI sdist's compile can take half an hour,
// and "build ..." alone for that long reads as a hang. Each tool's own progress output is read
// as it is: ninja's [N/M], make's [ P%], compiler command lines (setuptools without ninja), CTest's
// and GoogleTest's test lines, pytest's [ P%].
#pragma once

#include <string>

namespace opmatrix {

struct StepProgress {
  std::string kind;       // "ninja", "make", "compile", "ctest", "gtest", "pytest", or "" (nothing known yet)
  int done = 0, total = 0;  // ninja/ctest: N of M; make/pytest: total = 100 (percent)
  int compiled = 0;       // compiler command lines seen (setuptools without ninja prints no total)
  std::string last;       // what the last recognised line names (a source file, a test)
  std::string last_line;  // the last non-empty line, shortened: said when nothing is recognised
};

void feed_step_line(StepProgress& progress, const std::string& line);
// "ninja: 12 of 86 done (last: scatter_cpu.cpp)", "tests: 3 of 40 (last: Meta.Nms)", or the
// last line; "" before any output.
std::string describe_step_progress(const StepProgress& progress);

}  // namespace opmatrix
