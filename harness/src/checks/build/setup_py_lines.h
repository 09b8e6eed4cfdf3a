// A project's setup.py read line by line, for the build rules that name the line behind a
// failure (a test of a visible GPU over a raise, a CUDA switch read from the environment, an arch
// it asks for): one split, one way of numbering.
#pragma once

#include <string>
#include <vector>

namespace opmatrix {

// The lines of setup.py as written, split at '\n' (line N is index N - 1).
std::vector<std::string> setup_py_lines(const std::string& setup);

// A line without its indentation.
std::string without_indent(const std::string& line);

// How a verdict quotes line INDEX (0-based): "setup.py:22 `raise Exception(...)`".
std::string quoted_setup_line(const std::vector<std::string>& lines, std::size_t index);

}  // namespace opmatrix
