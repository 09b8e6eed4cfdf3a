#include "init/python_package.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "init/source_files.h"
#include "init/source_lexer.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

bool is_module_name(const std::string& s) {
  static const std::regex re(R"(^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$)");
  return s.size() <= 200 && std::regex_match(s, re);
}

std::string previous_word(const std::string& code, std::size_t at) {
  std::size_t end = at;
  while (end > 0 && std::isspace(static_cast<unsigned char>(code[end - 1]))) --end;
  std::size_t begin = end;
  while (begin > 0 && is_identifier_char(code[begin - 1])) --begin;
  return code.substr(begin, end - begin);
}

// `word =` but not `word ==`; the cursor ends after the '='.
bool takes_assignment(CodeCursor& cur) {
  if (!cur.take('=')) return false;
  CodeCursor probe = cur;
  return !probe.take('=');
}

// NAME = "value" at the top of the module (setup(name=NAME) is common).
std::string module_constant(const LexedSource& src, const std::string& ident) {
  std::string found;
  for_each_identifier(src.code, [&](std::size_t at, const std::string& word) {
    if (word != ident || !found.empty() || (at != 0 && src.code[at - 1] != '\n')) return;
    CodeCursor cur(src, at + word.size());
    std::string value;
    if (takes_assignment(cur) && cur.string_run(value)) found = value;
  });
  return found;
}

// The top-level keyword arguments of the first setup(...) call: name -> cursor after its '='.
std::vector<std::pair<std::string, std::size_t>> setup_keywords(const LexedSource& src) {
  std::vector<std::pair<std::string, std::size_t>> out;
  std::size_t open = std::string::npos;
  for_each_identifier(src.code, [&](std::size_t at, const std::string& word) {
    if (word != "setup" || open != std::string::npos || previous_word(src.code, at) == "def") return;
    CodeCursor cur(src, at + word.size());
    if (cur.take('(')) open = cur.pos() - 1;
  });
  if (open == std::string::npos) return out;
  const std::size_t close = matching_close(src.code, open);
  int depth = 0;
  for (std::size_t i = open + 1; i < close; ++i) {
    const char c = src.code[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    else if (depth == 0 && is_identifier_start(c) && !is_identifier_char(src.code[i - 1])) {
      CodeCursor cur(src, i);
      const std::string word = cur.identifier();
      if (takes_assignment(cur)) out.emplace_back(word, cur.pos());
      i = i + word.size() - 1;
    }
  }
  return out;
}

std::string top_level(const std::string& package) { return package.substr(0, package.find('.')); }

void read_packages(const LexedSource& src, std::size_t at, SetupFacts& facts) {
  CodeCursor cur(src, at);
  if (cur.take('[')) {
    const std::size_t close = matching_close(src.code, cur.pos() - 1);
    for (const auto& lit : src.literals) {
      if (lit.begin < cur.pos() || lit.begin > close || !is_module_name(lit.value)) continue;
      const std::string top = top_level(lit.value);
      if (std::find(facts.packages.begin(), facts.packages.end(), top) == facts.packages.end())
        facts.packages.push_back(top);
    }
    return;
  }
  const std::string callee = cur.qualified_name(".");
  const std::string last = callee.substr(callee.rfind('.') + 1);
  if ((last != "find_packages" && last != "find_namespace_packages") || !cur.take('(')) return;
  facts.find_packages = true;
  std::string where;
  if (cur.string_run(where) || (cur.identifier() == "where" && takes_assignment(cur) && cur.string_run(where)))
    facts.packages_root = where == "." ? "" : where;
}

void read_package_dir(const LexedSource& src, std::size_t at, SetupFacts& facts) {
  CodeCursor cur(src, at);
  std::string key, value;
  if (cur.take('{') && cur.string_run(key) && key.empty() && cur.take(':') && cur.string_run(value) &&
      facts.packages_root.empty())
    facts.packages_root = value;
}

// CppExtension("pkg._C", ...), CUDAExtension(name="x", ...), and the `extension(...)` a setup.py
// assigned one of them to: any call of a name ending in "extension" whose name is a literal.
void read_extensions(const LexedSource& src, SetupFacts& facts) {
  for_each_identifier(src.code, [&](std::size_t at, const std::string& word) {
    std::string lower = word;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower.size() < 9 || lower.compare(lower.size() - 9, 9, "extension") != 0) return;
    CodeCursor cur(src, at + word.size());
    if (!cur.take('(')) return;
    std::string name;
    if (!cur.string_run(name) && !(cur.identifier() == "name" && takes_assignment(cur) && cur.string_run(name))) return;
    if (is_module_name(name) && std::find(facts.extensions.begin(), facts.extensions.end(), name) == facts.extensions.end())
      facts.extensions.push_back(name);
  });
}

// `name = value` in one [section] of an INI (setup.cfg) or TOML (pyproject.toml) file.
std::string section_name(const std::string& text, const std::string& section) {
  static const std::regex name_line(R"(^\s*name\s*=\s*["']?([A-Za-z0-9._-]+)["']?\s*$)");
  std::istringstream in(text);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '[') {
      inside = line.rfind(section, 0) == 0;
      continue;
    }
    std::smatch m;
    if (inside && std::regex_match(line, m, name_line)) return m[1];
  }
  return "";
}

std::string normalised(const std::string& name) {
  std::string out;
  for (char c : name) out += (c == '-' || c == '.') ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_package(const fs::path& folder) { return fs::is_regular_file(folder / "__init__.py"); }

bool is_test_or_docs(const std::string& name) {
  static const std::set<std::string> names = {"test", "tests", "testing", "doc", "docs", "example", "examples",
                                              "benchmark", "benchmarks", "bench", "scripts", "tools"};
  return names.count(name) > 0;
}

std::vector<std::string> package_folders(const fs::path& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec) && !is_skipped_folder(name) && !is_test_or_docs(name) && is_package(it->path()))
      out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

SetupFacts read_setup_facts(const std::string& setup_py, const std::string& setup_cfg, const std::string& pyproject) {
  SetupFacts facts;
  const LexedSource src = lex_python(setup_py);
  for (const auto& [key, at] : setup_keywords(src)) {
    CodeCursor cur(src, at);
    if (key == "name") {
      std::string value;
      if (cur.string_run(value)) facts.dist_name = value;
      else if (const std::string ident = cur.identifier(); !ident.empty()) facts.dist_name = module_constant(src, ident);
    } else if (key == "packages") {
      read_packages(src, at, facts);
    } else if (key == "package_dir") {
      read_package_dir(src, at, facts);
    }
  }
  if (facts.dist_name.empty()) facts.dist_name = section_name(setup_cfg, "[metadata]");
  if (facts.dist_name.empty()) facts.dist_name = section_name(pyproject, "[project]");
  read_extensions(src, facts);
  return facts;
}

ImportModule find_import_module(const fs::path& dir, const SetupFacts& facts, bool pybind11_only) {
  const fs::path root = dir / facts.packages_root;
  std::vector<std::string> installed;
  if (!facts.packages.empty()) {
    for (const auto& p : facts.packages)
      if (is_package(root / p)) installed.push_back(p);
  } else if (facts.find_packages) {
    installed = package_folders(root);
  }
  const std::string want = normalised(facts.dist_name);
  for (const auto& p : installed)
    if (!want.empty() && normalised(p) == want)
      return {p, fmt::format("package folder {}/, installed by setup.py and named like the distribution", p)};
  if (installed.size() == 1)
    return {installed[0], fmt::format("package folder {}/, the one package setup.py installs", installed[0])};
  if (!want.empty())
    for (const auto& p : package_folders(root))
      if (normalised(p) == want) return {p, fmt::format("package folder {}/, named like the distribution", p)};
  if (pybind11_only && facts.extensions.size() == 1)
    return {facts.extensions[0], "the extension module setup.py builds; pybind11 only, no package folder"};
  if (installed.size() > 1)
    return {"", fmt::format("setup.py installs several packages ({}); set import: to the one users import",
                            fmt::join(installed, ", "))};
  if (pybind11_only && facts.extensions.size() > 1)
    return {"", fmt::format("setup.py builds several extension modules ({}); set import: to the one users import",
                            fmt::join(facts.extensions, ", "))};
  return {"", "no package folder with __init__.py that setup.py installs"};
}

}  // namespace opmatrix
