#include "init/source_lexer.h"

#include <algorithm>
#include <cctype>

namespace opmatrix {

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

void blank(std::string& code, std::size_t from, std::size_t to) {
  for (std::size_t k = from; k < to && k < code.size(); ++k)
    if (code[k] != '\n') code[k] = ' ';
}

char decode_escape(char c) {
  switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    default: return c;  // \" \\ \' and whatever else: the character itself is close enough here
  }
}

// A "..." or '...' literal whose opening quote is at `q`. Returns one past the closing quote,
// or the end of the line when it is unterminated (the compiler's error, not ours to report).
std::size_t read_quoted(const std::string& t, std::size_t q, bool keep_escapes, std::string& value) {
  const char quote = t[q];
  std::size_t i = q + 1;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '\\' && i + 1 < t.size()) {
      if (t[i + 1] == '\n') {  // a line splice / continuation: neither character is in the value
      } else if (keep_escapes) {
        value += c;
        value += t[i + 1];
      } else {
        value += decode_escape(t[i + 1]);
      }
      i += 2;
      continue;
    }
    if (c == quote) return i + 1;
    if (c == '\n') return i;
    value += c;
    ++i;
  }
  return i;
}

void add_literal(LexedSource& out, std::size_t begin, std::size_t quote, std::size_t end, std::string value) {
  // Blank the contents, keep the quotes: the code still shows that a literal stands there.
  blank(out.code, quote + 1, end > quote + 1 ? end - 1 : quote + 1);
  out.literals.push_back({begin, end, std::move(value)});
}

// R"delim(...)delim" with its opening quote at `q`; false if what follows is no raw string.
bool read_cpp_raw(LexedSource& out, const std::string& t, std::size_t begin, std::size_t q, std::size_t& end) {
  const std::size_t paren = t.find('(', q + 1);
  if (paren == std::string::npos || paren - q - 1 > 16) return false;
  const std::string delim = t.substr(q + 1, paren - q - 1);
  if (delim.find_first_of(" \\\t\n)\"") != std::string::npos) return false;
  const std::string closing = ")" + delim + "\"";
  const std::size_t close = t.find(closing, paren + 1);
  end = close == std::string::npos ? t.size() : close + closing.size();
  const std::size_t value_end = close == std::string::npos ? t.size() : close;
  add_literal(out, begin, q, end, t.substr(paren + 1, value_end - paren - 1));
  return true;
}

bool one_of(const std::string& word, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return word == w; });
}

}  // namespace

LexedSource lex_cpp(const std::string& t) {
  LexedSource out;
  out.code = t;
  const std::size_t n = t.size();
  std::size_t i = 0;
  while (i < n) {
    const char c = t[i];
    if (c == '/' && i + 1 < n && t[i + 1] == '/') {
      std::size_t j = i + 2;
      while (j < n && t[j] != '\n') j += (t[j] == '\\' && j + 1 < n) ? 2 : 1;  // a spliced comment goes on
      blank(out.code, i, j);
      i = j;
      continue;
    }
    if (c == '/' && i + 1 < n && t[i + 1] == '*') {
      const std::size_t close = t.find("*/", i + 2);
      const std::size_t j = close == std::string::npos ? n : close + 2;
      blank(out.code, i, j);
      i = j;
      continue;
    }
    if (is_identifier_start(c) || is_digit(c)) {
      // A whole word or number at once, so that 1'000'000's separators are not char literals
      // and u8"..", R"(..)" are seen with their prefixes.
      const bool number = is_digit(c);
      std::size_t j = i;
      while (j < n && (is_identifier_char(t[j]) ||
                       (number && t[j] == '\'' && j + 1 < n && is_identifier_char(t[j + 1]))))
        ++j;
      const std::string word = t.substr(i, j - i);
      if (!number && j < n && t[j] == '"') {
        std::size_t end = 0;
        if (one_of(word, {"R", "u8R", "uR", "UR", "LR"}) && read_cpp_raw(out, t, i, j, end)) {
          i = end;
          continue;
        }
        if (one_of(word, {"u8", "u", "U", "L"})) {
          std::string value;
          end = read_quoted(t, j, false, value);
          add_literal(out, i, j, end, std::move(value));
          i = end;
          continue;
        }
      }
      if (!number && j < n && t[j] == '\'' && one_of(word, {"u8", "u", "U", "L"})) {
        std::string ignored;
        const std::size_t end = read_quoted(t, j, false, ignored);
        blank(out.code, j + 1, end > j + 1 ? end - 1 : j + 1);
        i = end;
        continue;
      }
      i = j;
      continue;
    }
    if (c == '"') {
      std::string value;
      const std::size_t end = read_quoted(t, i, false, value);
      add_literal(out, i, i, end, std::move(value));
      i = end;
      continue;
    }
    if (c == '\'') {  // a char literal: blanked ('{' must not count as a brace), not kept
      std::string ignored;
      const std::size_t end = read_quoted(t, i, false, ignored);
      blank(out.code, i + 1, end > i + 1 ? end - 1 : i + 1);
      i = end;
      continue;
    }
    ++i;
  }
  return out;
}

LexedSource lex_python(const std::string& t) {
  LexedSource out;
  out.code = t;
  const std::size_t n = t.size();
  std::size_t i = 0;
  const auto read_string = [&](std::size_t begin, std::size_t q, bool raw) {
    const char quote = t[q];
    std::string value;
    std::size_t end;
    if (t.compare(q, 3, std::string(3, quote)) == 0) {
      std::size_t k = q + 3;
      end = n;
      std::size_t contents_end = n;
      while (k < n) {
        if (t[k] == '\\' && k + 1 < n) {
          if (raw) value += t.substr(k, 2);
          else if (t[k + 1] != '\n') value += decode_escape(t[k + 1]);
          k += 2;
          continue;
        }
        if (t.compare(k, 3, std::string(3, quote)) == 0) {
          contents_end = k;
          end = k + 3;
          break;
        }
        value += t[k++];
      }
      blank(out.code, q + 3, contents_end);
      out.literals.push_back({begin, end, std::move(value)});
    } else {
      end = read_quoted(t, q, raw, value);
      add_literal(out, begin, q, end, std::move(value));
    }
    return end;
  };
  while (i < n) {
    const char c = t[i];
    if (c == '#') {
      std::size_t j = t.find('\n', i);
      if (j == std::string::npos) j = n;
      blank(out.code, i, j);
      i = j;
      continue;
    }
    if (is_identifier_start(c) || is_digit(c)) {
      std::size_t j = i;
      while (j < n && is_identifier_char(t[j])) ++j;
      const std::string word = t.substr(i, j - i);
      const bool prefix = !is_digit(c) && word.size() <= 2 &&
                          word.find_first_not_of("rRbBuUfF") == std::string::npos;
      if (prefix && j < n && (t[j] == '"' || t[j] == '\'')) {
        i = read_string(i, j, word.find_first_of("rR") != std::string::npos);
        continue;
      }
      i = j;
      continue;
    }
    if (c == '"' || c == '\'') {
      i = read_string(i, i, false);
      continue;
    }
    ++i;
  }
  return out;
}

void CodeCursor::skip_space() {
  const std::string& code = src_.code;
  while (pos_ < code.size()) {
    if (std::isspace(static_cast<unsigned char>(code[pos_]))) ++pos_;
    else if (code[pos_] == '\\' && pos_ + 1 < code.size() && code[pos_ + 1] == '\n') pos_ += 2;
    else break;
  }
}

bool CodeCursor::take(char c) {
  skip_space();
  if (pos_ < src_.code.size() && src_.code[pos_] == c) {
    ++pos_;
    return true;
  }
  return false;
}

std::string CodeCursor::identifier() {
  skip_space();
  const std::string& code = src_.code;
  if (pos_ >= code.size() || !is_identifier_start(code[pos_])) return "";
  const std::size_t start = pos_;
  while (pos_ < code.size() && is_identifier_char(code[pos_])) ++pos_;
  return code.substr(start, pos_ - start);
}

std::string CodeCursor::qualified_name(const std::string& sep) {
  skip_space();
  const std::string& code = src_.code;
  std::string name;
  if (code.compare(pos_, sep.size(), sep) == 0) {  // ::torch::schema
    pos_ += sep.size();
    name = sep;
  }
  const std::string first = identifier();
  if (first.empty()) return "";
  name += first;
  for (;;) {
    const std::size_t save = pos_;
    skip_space();
    if (code.compare(pos_, sep.size(), sep) != 0) {
      pos_ = save;
      break;
    }
    pos_ += sep.size();
    const std::string next = identifier();
    if (next.empty()) {
      pos_ = save;
      break;
    }
    name += sep + next;
  }
  return name;
}

bool CodeCursor::string_run(std::string& value) {
  const std::size_t save = pos_;
  skip_space();
  const auto& lits = src_.literals;
  auto at = [&](std::size_t p) {
    return std::lower_bound(lits.begin(), lits.end(), p,
                            [](const StringLiteral& l, std::size_t x) { return l.begin < x; });
  };
  auto it = at(pos_);
  if (it == lits.end() || it->begin != pos_) {
    pos_ = save;
    return false;
  }
  value.clear();
  for (;;) {
    value += it->value;
    pos_ = it->end;
    const std::size_t after = pos_;
    skip_space();
    it = at(pos_);
    if (it == lits.end() || it->begin != pos_) {
      pos_ = after;
      return true;
    }
  }
}

std::size_t matching_close(const std::string& code, std::size_t open) {
  const char o = code[open];
  const char c = o == '(' ? ')' : o == '[' ? ']' : '}';
  int depth = 0;
  for (std::size_t i = open; i < code.size(); ++i) {
    if (code[i] == o) ++depth;
    else if (code[i] == c && --depth == 0) return i;
  }
  return code.size();
}

int line_of(const std::string& code, std::size_t pos) {
  return 1 + static_cast<int>(std::count(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(std::min(pos, code.size())), '\n'));
}

}  // namespace opmatrix
