// Just enough lexing of C++ and Python source for `opmatrix init` to find op registrations:
// comments disappear (so a commented-out TORCH_LIBRARY is not an op library), string literals
// are lifted out with their values (so a schema's braces and parentheses cannot confuse the
// code around them), and everything keeps its offset.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace opmatrix {

struct StringLiteral {
  std::size_t begin = 0;  // offset of its first character (a prefix such as u8 or r included)
  std::size_t end = 0;    // one past its closing quote
  std::string value;      // escapes decoded; raw strings as written
};

struct LexedSource {
  // The source with comments and the contents of string and character literals blanked to
  // spaces (newlines kept, so offsets and line numbers still match the file).
  std::string code;
  std::vector<StringLiteral> literals;  // in order of `begin`
};

LexedSource lex_cpp(const std::string& text);
LexedSource lex_python(const std::string& text);

// A cursor over LexedSource::code for the small recursive-descent reads init makes.
class CodeCursor {
 public:
  CodeCursor(const LexedSource& src, std::size_t pos) : src_(src), pos_(pos) {}
  std::size_t pos() const { return pos_; }
  bool at_end() const { return pos_ >= src_.code.size(); }
  void skip_space();  // whitespace and Python's backslash line continuations
  bool take(char c);  // after skip_space
  // An identifier, or "" (nothing consumed).
  std::string identifier();
  // `a::b::c` (C++) or `a.b.c` (Python, sep "."), or "".
  std::string qualified_name(const std::string& sep);
  // The adjacent string literals starting here, joined ("a" "b" -> "ab", across lines, as
  // the compiler joins them); false, nothing consumed, when no literal starts here.
  bool string_run(std::string& value);

 private:
  const LexedSource& src_;
  std::size_t pos_;
};

bool is_identifier_start(char c);
bool is_identifier_char(char c);
// Calls f(position, identifier) for every identifier in `code`, in order.
template <typename F>
void for_each_identifier(const std::string& code, F&& f) {
  std::size_t i = 0;
  while (i < code.size()) {
    if (is_identifier_start(code[i]) && (i == 0 || !is_identifier_char(code[i - 1]))) {
      std::size_t j = i;
      while (j < code.size() && is_identifier_char(code[j])) ++j;
      f(i, code.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
}

// Offset of the bracket closing the one at `open` ('(' '[' '{'), counting only its own kind;
// code.size() when unbalanced.
std::size_t matching_close(const std::string& code, std::size_t open);

int line_of(const std::string& code, std::size_t pos);  // 1-based

}  // namespace opmatrix
