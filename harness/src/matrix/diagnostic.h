// Errors and warnings about an input file, each pinned to a line and column, printed in
// the `FILE:LINE:COL: error: MESSAGE` form editors and CI annotations understand.
#pragma once

#include <string>
#include <vector>

namespace opmatrix {

struct SourcePos {
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based; 0 = unknown
};

enum class Severity { error, warning };

struct Diagnostic {
  std::string file;
  SourcePos pos;
  Severity severity = Severity::error;
  std::string message;
};

std::string format_diagnostic(const Diagnostic& d);

class Diagnostics {
 public:
  explicit Diagnostics(std::string file) : file_(std::move(file)) {}

  void error(SourcePos pos, std::string message);
  void warning(SourcePos pos, std::string message);

  bool has_errors() const;
  const std::string& file() const { return file_; }
  // Sorted by position so a user fixes them top to bottom; errors and warnings interleave.
  std::vector<Diagnostic> sorted() const;

 private:
  std::string file_;
  std::vector<Diagnostic> items_;
};

}  // namespace opmatrix
