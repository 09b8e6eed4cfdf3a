#include "run/step_progress.h"

#include <regex>

#include <fmt/format.h>

namespace opmatrix {

namespace {

std::string shortened(std::string s, std::size_t width = 90) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
  if (s.size() > width) s = s.substr(0, width - 1) + "…";
  return s;
}

// The file name of the last source or object a build line names: "scatter_cpu.cpp".
std::string named_file(const std::string& line) {
  static const std::regex file(R"(([A-Za-z0-9_.+\-]+\.(?:cpp|cc|cxx|c|cu|o|so))\b)");
  std::string last;
  for (std::sregex_iterator it(line.begin(), line.end(), file), end; it != end; ++it) last = (*it)[1];
  return last;
}

}  // namespace

void feed_step_line(StepProgress& p, const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;
  p.last_line = shortened(line);
  // A build's own output: nine digits at most, which std::stoi holds (a longer count is no progress).
  static const std::regex ninja(R"(^\[(\d{1,9})/(\d{1,9})\] (.*))");
  static const std::regex make(R"(^\[ *(\d{1,9})%\] (.*))");
  static const std::regex ctest(R"(^ *(\d{1,9})/(\d{1,9}) Test +#\d+: (\S+))");
  static const std::regex gtest(R"(^\[ RUN +\] (\S+))");
  static const std::regex pytest(R"(^(\S+::\S+).*\[ *(\d{1,9})%\]\s*$)");
  static const std::regex compiler(R"((?:^|/|\s)(?:[\w.-]*-)?(?:g\+\+|gcc|c\+\+|cc|clang\+\+|clang|nvcc)(?:-\d+)?\s.*\s-c\s)");
  std::smatch m;
  if (std::regex_search(line, m, ninja)) {
    p.kind = "ninja";
    p.done = std::stoi(m[1]);
    p.total = std::stoi(m[2]);
    const std::string f = named_file(m[3]);
    if (!f.empty()) p.last = f;
  } else if (std::regex_search(line, m, make)) {
    p.kind = "make";
    p.done = std::stoi(m[1]);
    p.total = 100;
    const std::string f = named_file(m[2]);
    if (!f.empty()) p.last = f;
  } else if (std::regex_search(line, m, ctest)) {
    p.kind = "ctest";
    p.done = std::stoi(m[1]);
    p.total = std::stoi(m[2]);
    p.last = m[3];
  } else if (std::regex_search(line, m, gtest)) {
    p.kind = "gtest";
    ++p.done;
    p.last = m[1];
  } else if (std::regex_search(line, m, pytest)) {
    p.kind = "pytest";
    p.done = std::stoi(m[2]);
    p.total = 100;
    p.last = m[1];
  } else if (std::regex_search(line, compiler)) {
    if (p.kind.empty() || p.kind == "compile") p.kind = "compile";
    ++p.compiled;
    // The source is the word after -c (the -o that follows names the object).
    const std::size_t c = line.rfind(" -c ");
    std::string source = line.substr(c + 4);
    source = source.substr(0, source.find(' '));
    source = source.substr(source.rfind('/') == std::string::npos ? 0 : source.rfind('/') + 1);
    if (!source.empty()) p.last = source;
  }
}

std::string describe_step_progress(const StepProgress& p) {
  const std::string last = p.last.empty() ? "" : " (last: " + p.last + ")";
  if (p.kind == "ninja") return fmt::format("compiling: {} of {} build steps done{}", p.done, p.total, last);
  if (p.kind == "make") return fmt::format("compiling: {} % done{}", p.done, last);
  if (p.kind == "compile")
    return fmt::format("compiling: {} translation unit{} started{}", p.compiled, p.compiled == 1 ? "" : "s", last);
  if (p.kind == "ctest") return fmt::format("tests: {} of {} done{}", p.done, p.total, last);
  if (p.kind == "gtest") return fmt::format("tests: {} started, running {}", p.done, p.last);
  if (p.kind == "pytest") return fmt::format("tests: {} % done{}", p.done, last);
  return p.last_line;
}

}  // namespace opmatrix
