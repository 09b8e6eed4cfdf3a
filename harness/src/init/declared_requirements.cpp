#include "init/declared_requirements.h"

#include <algorithm>
#include <regex>
#include <sstream>

#include "init/source_lexer.h"
#include "util/atomic_write.h"
#include "util/python_distributions.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// The extras and dependency groups the run installs with tests (requirements.py's TEST_EXTRAS).
const char* const kTestKeys = "test|tests|testing";

void add(std::vector<std::string>& out, const std::string& requirement) {
  const std::string name = requirement_name(requirement);
  if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
}

// setup.py: the string literals of install_requires=[...] (a list built elsewhere, from
// requirements.txt most often, is read from that file).
void from_setup_py(const std::string& text, std::vector<std::string>& out) {
  const LexedSource src = lex_python(text);
  for_each_identifier(src.code, [&](std::size_t at, const std::string& word) {
    if (word != "install_requires") return;
    CodeCursor cur(src, at + word.size());
    if (!cur.take('=') || !cur.take('[')) return;
    const std::size_t open = cur.pos() - 1, close = matching_close(src.code, open);
    for (const auto& lit : src.literals)
      if (lit.begin > open && lit.end <= close) add(out, lit.value);
  });
}

// pyproject.toml's dependencies = [...] and its test extra or group (test = [...]).
void from_pyproject(const std::string& text, std::vector<std::string>& out) {
  static const std::regex array(std::string(R"((?:^|\n)[ \t]*(?:dependencies|)") + kTestKeys +
                                R"()[ \t]*=[ \t]*\[([^\]]*)\])");
  static const std::regex quoted(R"(["']([^"']+)["'])");
  for (std::sregex_iterator it(text.begin(), text.end(), array), end; it != end; ++it) {
    const std::string items = (*it)[1];
    for (std::sregex_iterator q(items.begin(), items.end(), quoted); q != end; ++q) add(out, (*q)[1]);
  }
}

// setup.cfg's install_requires = and test = (in [options.extras_require]): one requirement a
// line, the continuation lines indented.
void from_setup_cfg(const std::string& text, std::vector<std::string>& out) {
  static const std::regex key(std::string(R"((?:^|\n)(?:install_requires|)") + kTestKeys +
                              R"()[ \t]*=([^\n]*(?:\n[ \t]+[^\n]*)*))");
  for (std::sregex_iterator it(text.begin(), text.end(), key), end; it != end; ++it) {
    std::istringstream lines((*it)[1].str());
    for (std::string line; std::getline(lines, line);) add(out, line);
  }
}

// requirements.txt and the like: a requirement a line; options (-r, -e) and comments left out.
void from_requirements_file(const std::string& text, std::vector<std::string>& out) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t at = line.find_first_not_of(" \t");
    if (at != std::string::npos && line[at] != '#' && line[at] != '-') add(out, line);
  }
}

}  // namespace

std::vector<std::string> declared_requirements(const fs::path& dir, const std::vector<std::string>& requirement_files) {
  std::vector<std::string> out;
  from_setup_py(read_text_file((dir / "setup.py").string()), out);
  from_setup_cfg(read_text_file((dir / "setup.cfg").string()), out);
  from_pyproject(read_text_file((dir / "pyproject.toml").string()), out);
  from_requirements_file(read_text_file((dir / "requirements.txt").string()), out);
  for (const auto& f : requirement_files) from_requirements_file(read_text_file((dir / f).string()), out);
  return out;
}

}  // namespace opmatrix
