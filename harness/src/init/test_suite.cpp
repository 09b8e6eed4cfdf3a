#include "init/test_suite.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "init/declared_requirements.h"
#include "init/python_stdlib.h"
#include "init/source_files.h"
#include "init/source_lexer.h"
#include "util/atomic_write.h"
#include "util/python_distributions.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// Test folders, in the order they are looked for.
const std::vector<std::string> kTestFolders = {"test", "tests", "testing"};

// The files scripts/cell/requirements.py reads a library's test requirements from: the same list
// as its TEST_FILES (tests/unit/init checks they agree).
const std::vector<std::string> kRequirementFiles = {
    "requirements-test.txt",  "requirements_test.txt", "test-requirements.txt",
    "test_requirements.txt",  "requirements-tests.txt", "requirements/test.txt",
    "requirements/tests.txt", "test/requirements.txt",  "tests/requirements.txt"};

// Modules a cell has whatever the tests need: torch and its family (the matrix's), pytest (the
// run installs it with tests) and what pytest brings.
const std::vector<std::string> kCellHas = {"torch", "torchvision", "torchaudio", "triton", "pytest", "_pytest", "py"};

bool is_test_file(const fs::path& p) {
  const std::string name = p.filename().string();
  return p.extension() == ".py" && (name.rfind("test_", 0) == 0 || (name.size() > 8 && name.compare(name.size() - 8, 8, "_test.py") == 0));
}

std::string top_of(const std::string& module) { return module.substr(0, module.find('.')); }

// Whether a test file defines what pytest collects: a top-level or method `def test…`, a `class Test…`.
bool defines_tests(const fs::path& p) {
  static const std::regex collected(R"((^|\n)[ \t]*(?:async[ \t]+)?(?:def[ \t]+test|class[ \t]+Test))");
  return is_test_file(p) && std::regex_search(read_text_file(p.string()), collected);
}

// The test files and conftest.py files under a test folder, every one, in a stable order.
std::vector<fs::path> suite_files(const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory() && is_skipped_folder(it->path().filename().string())) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && (is_test_file(it->path()) || it->path().filename() == "conftest.py"))
      files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The modules a Python file imports (`import a, b.c as d`, `from e.f import g`; not the relative
// `from . import x`), read from its code without comments and strings.
std::vector<std::string> imported_modules(const std::string& text) {
  static const std::regex import_line(R"((?:^|\n)[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import|import[ \t]+([^\n;]+)))");
  static const std::regex one_name(R"(^\s*([A-Za-z_][\w.]*))");
  const std::string code = lex_python(text).code;
  std::vector<std::string> out;
  for (std::sregex_iterator it(code.begin(), code.end(), import_line), end; it != end; ++it) {
    if ((*it)[1].matched) {
      out.push_back((*it)[1]);
      continue;
    }
    std::stringstream names((*it)[2].str());
    std::smatch m;
    for (std::string name; std::getline(names, name, ',');)
      if (std::regex_search(name, m, one_name)) out.push_back(m[1]);
  }
  return out;
}

// Whether a module is the library's or its suite's own: one it installs, or a module or package in
// the library's folder (its root, src/) or beside the importing file or above it, up to the root.
bool own_module(const std::string& top, const fs::path& dir, const fs::path& file,
                const std::vector<std::string>& own_packages) {
  if (std::find(own_packages.begin(), own_packages.end(), top) != own_packages.end()) return true;
  auto holds = [&](const fs::path& folder) {
    return fs::exists(folder / (top + ".py")) || fs::is_directory(folder / top);
  };
  if (holds(dir / "src")) return true;
  for (fs::path folder = file.parent_path(); !folder.empty(); folder = folder.parent_path()) {
    if (holds(folder)) return true;
    if (folder == dir || folder == folder.parent_path()) break;
  }
  return holds(dir);
}

// The distribution a test file's import needs, or null where the cell has it or no cell needs it.
std::optional<ModuleDistribution> needed(const std::string& module, const fs::path& dir, const fs::path& file,
                                         const std::vector<std::string>& own_packages,
                                         const std::vector<std::string>& declared) {
  // The table first: torch's own test helpers need expecttest, which torch does not require.
  if (const ModuleDistribution* known = known_distribution(module))
    return provided_by(known->module, declared) ? std::nullopt : std::optional<ModuleDistribution>(*known);
  const std::string top = top_of(module);
  if (is_stdlib_module(top) || std::find(kCellHas.begin(), kCellHas.end(), top) != kCellHas.end() ||
      own_module(top, dir, file, own_packages) || provided_by(top, declared))
    return std::nullopt;
  return distribution_of(module);
}

// "cv2 in test/a.py, test/b.py, test/c.py and 2 more"
std::string why_needed(const TestRequirement& r, const std::string& note) {
  const std::size_t shown = std::min<std::size_t>(r.files.size(), 3);
  std::string files = fmt::format("{}", fmt::join(r.files.begin(), r.files.begin() + static_cast<std::ptrdiff_t>(shown), ", "));
  if (r.files.size() > shown) files += fmt::format(" and {} more", r.files.size() - shown);
  return note.empty() ? fmt::format("{} in {}", r.module, files) : fmt::format("{} ({}) in {}", r.module, note, files);
}

// What the suite's files import that a cell lacks, each distribution with the files importing it.
std::vector<TestRequirement> suite_requirements(const fs::path& dir, const std::vector<fs::path>& files,
                                                const std::vector<std::string>& own_packages) {
  const std::vector<std::string> declared = declared_requirements(dir, kRequirementFiles);
  std::vector<TestRequirement> out;
  std::vector<std::string> notes;
  for (const auto& file : files) {
    const std::string rel = file.lexically_relative(dir).generic_string();
    for (const auto& module : imported_modules(read_text_file(file.string()))) {
      const auto dist = needed(module, dir, file, own_packages, declared);
      if (!dist) continue;
      auto r = std::find_if(out.begin(), out.end(), [&](const TestRequirement& x) { return x.requirement == dist->distribution; });
      if (r == out.end()) {
        out.push_back({dist->distribution, dist->module, {}, ""});
        notes.push_back(dist->note);
        r = out.end() - 1;
      }
      if (std::find(r->files.begin(), r->files.end(), rel) == r->files.end()) r->files.push_back(rel);
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i].why = why_needed(out[i], notes[i]);
  return out;
}

}  // namespace

const std::vector<std::string>& test_requirement_files() { return kRequirementFiles; }

TestSuite find_test_suite(const fs::path& dir, const std::vector<std::string>& own_packages) {
  TestSuite suite;
  for (const auto& folder : kTestFolders) {
    const std::vector<fs::path> files = suite_files(dir / folder);
    const auto tests = std::count_if(files.begin(), files.end(), [](const fs::path& f) { return is_test_file(f); });
    // A folder whose files pytest collects nothing from (fused-ssim's tests/: scripts run by hand,
    // no test function or class) is no suite.
    if (tests == 0 || std::none_of(files.begin(), files.end(), defines_tests)) continue;
    suite.folder = folder;
    suite.files = static_cast<int>(tests);
    suite.requires = suite_requirements(dir, files, own_packages);
    break;
  }
  for (const auto& f : kRequirementFiles)
    if (fs::is_regular_file(dir / f)) suite.requirement_files.push_back(f);
  return suite;
}

}  // namespace opmatrix
