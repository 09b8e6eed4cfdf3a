#include "init/test_suite.h"

#include <algorithm>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "util/atomic_write.h"

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

// What a test file's import needs from PyPI that no torch brings: import name -> (requirement,
// why). torch's own test helpers import expecttest, which torch does not require.
struct Needs {
  const char* requirement;
  const char* via;  // "" = the module itself
};
const std::map<std::string, Needs>& import_table() {
  static const std::map<std::string, Needs> table = {
      {"torch.testing._internal", {"expecttest", "torch.testing._internal, which imports expecttest"}},
      {"expecttest", {"expecttest", ""}},
      {"hypothesis", {"hypothesis", ""}},
      {"parameterized", {"parameterized", ""}},
      {"numpy", {"numpy", ""}},
      {"scipy", {"scipy", ""}},
      {"einops", {"einops", ""}},
      {"yaml", {"pyyaml", ""}},
      {"PIL", {"pillow", ""}},
      {"pandas", {"pandas", ""}},
      {"pytest_benchmark", {"pytest-benchmark", ""}},
      {"xdist", {"pytest-xdist", ""}},
  };
  return table;
}

bool is_test_file(const fs::path& p) {
  const std::string name = p.filename().string();
  return p.extension() == ".py" && (name.rfind("test_", 0) == 0 || (name.size() > 8 && name.compare(name.size() - 8, 8, "_test.py") == 0));
}

// "torch.testing._internal.common_utils" -> the table's longest key it starts with.
const std::pair<const std::string, Needs>* table_entry(const std::string& module) {
  const std::pair<const std::string, Needs>* best = nullptr;
  for (const auto& entry : import_table())
    if ((module == entry.first || module.rfind(entry.first + ".", 0) == 0) &&
        (!best || entry.first.size() > best->first.size()))
      best = &entry;
  return best;
}

}  // namespace

const std::vector<std::string>& test_requirement_files() { return kRequirementFiles; }

TestSuite find_test_suite(const fs::path& dir, const std::vector<fs::path>& python_files) {
  TestSuite suite;
  for (const auto& folder : kTestFolders) {
    std::vector<fs::path> tests;
    for (const auto& f : python_files) {
      // init's list holds dir/..., however dir was spelled; a bare relative path is under dir.
      const fs::path rel = f.lexically_normal().lexically_relative(dir.lexically_normal());
      const fs::path under = rel.empty() || *rel.begin() == ".." ? f.lexically_normal() : rel;
      if (under.begin() != under.end() && *under.begin() == folder && (is_test_file(f) || f.filename() == "conftest.py"))
        tests.push_back(dir / under);
    }
    if (std::none_of(tests.begin(), tests.end(), is_test_file)) continue;
    suite.folder = folder;
    suite.files = static_cast<int>(std::count_if(tests.begin(), tests.end(), is_test_file));
    static const std::regex import_line(R"((?:^|\n)[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import|import[ \t]+([A-Za-z_][\w.]*)))");
    for (const auto& file : tests) {
      const std::string text = read_text_file(file.string());
      for (std::sregex_iterator it(text.begin(), text.end(), import_line), end; it != end; ++it) {
        const std::string module = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
        const auto* entry = table_entry(module);
        if (!entry) continue;
        const std::string req = entry->second.requirement;
        if (std::any_of(suite.requires.begin(), suite.requires.end(),
                        [&](const TestRequirement& r) { return r.requirement == req; }))
          continue;
        const std::string rel = file.lexically_relative(dir).string();
        suite.requires.push_back({req, *entry->second.via ? fmt::format("{} imports {}", rel, entry->second.via)
                                                          : fmt::format("{} imports {}", rel, entry->first)});
      }
    }
    break;
  }
  for (const auto& f : kRequirementFiles)
    if (fs::is_regular_file(dir / f)) suite.requirement_files.push_back(f);
  return suite;
}

}  // namespace opmatrix
