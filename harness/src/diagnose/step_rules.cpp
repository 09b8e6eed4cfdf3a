#include "diagnose/step_rules.h"

#include <sstream>

namespace opmatrix::step_rules {

StepRule line_rule(const char* pattern, Explainer explain) { return StepRule{std::regex(pattern), nullptr, explain}; }

StepRule own_rule(Finder find, Explainer explain) { return StepRule{std::regex(), find, explain}; }

bool finds(const StepRule& rule, const std::string& log, Evidence& e) {
  return rule.find ? rule.find(log, e) : find_line(log, rule.pattern, e.line, e.m);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool find_line(const std::string& text, const std::regex& re, std::string& line, std::smatch& m) {
  for (const auto& l : lines_of(text)) {
    if (std::regex_search(l, m, re)) {
      line = l;
      // regex_search's match refers into `l`; redo it on the copy that outlives this loop.
      std::regex_search(line, m, re);
      return true;
    }
  }
  return false;
}

}  // namespace opmatrix::step_rules
