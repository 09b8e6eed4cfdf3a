#include "util/escape.h"

namespace opmatrix {

std::string escape_markup(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c < 0x20 && c != '\n' && c != '\t' && c != '\r' ? ' ' : static_cast<char>(c);
    }
  }
  return out;
}

std::string escape_md_cell(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace opmatrix
