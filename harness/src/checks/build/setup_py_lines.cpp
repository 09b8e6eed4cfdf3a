#include "checks/build/setup_py_lines.h"

#include <algorithm>

namespace opmatrix {

std::vector<std::string> setup_py_lines(const std::string& setup) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at <= setup.size();) {
    const std::size_t end = std::min(setup.find('\n', at), setup.size());
    lines.push_back(setup.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

std::string without_indent(const std::string& line) {
  const std::size_t first = line.find_first_not_of(" \t");
  return first == std::string::npos ? std::string() : line.substr(first);
}

std::string quoted_setup_line(const std::vector<std::string>& lines, std::size_t index) {
  return "setup.py:" + std::to_string(index + 1) + " `" + without_indent(lines[index]) + "`";
}

}  // namespace opmatrix
