#include "matrix/diagnostic.h"

#include <algorithm>

#include <fmt/format.h>

namespace opmatrix {

std::string format_diagnostic(const Diagnostic& d) {
  const char* kind = d.severity == Severity::error ? "error" : "warning";
  return fmt::format("{}:{}:{}: {}: {}", d.file, d.pos.line, d.pos.column, kind, d.message);
}

void Diagnostics::error(SourcePos pos, std::string message) {
  items_.push_back({file_, pos, Severity::error, std::move(message)});
}

void Diagnostics::warning(SourcePos pos, std::string message) {
  items_.push_back({file_, pos, Severity::warning, std::move(message)});
}

bool Diagnostics::has_errors() const {
  return std::any_of(items_.begin(), items_.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::error; });
}

std::vector<Diagnostic> Diagnostics::sorted() const {
  std::vector<Diagnostic> out = items_;
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.pos.line != b.pos.line) return a.pos.line < b.pos.line;
    return a.pos.column < b.pos.column;
  });
  // A cell template reports the same problem once per expanded cell; say it once.
  out.erase(std::unique(out.begin(), out.end(),
                        [](const Diagnostic& a, const Diagnostic& b) {
                          return a.pos.line == b.pos.line && a.pos.column == b.pos.column &&
                                 a.severity == b.severity && a.message == b.message;
                        }),
            out.end());
  return out;
}

}  // namespace opmatrix
