// The library's own test suite as `opmatrix init` finds it in its files: a test folder at its
// root holding pytest files, and what those files import that a cell may lack (from a lookup
// table of import names to PyPI names), so that init can propose `tests:` and `test_requires:`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace opmatrix {

struct TestRequirement {
  std::string requirement;  // the PyPI name: "expecttest"
  std::string why;          // "test/test_extension.py imports torch.testing._internal, which imports expecttest"
};

struct TestSuite {
  std::string folder;                         // "test", "tests"; "" = none found
  int files = 0;                              // test_*.py / *_test.py under it
  std::vector<TestRequirement> requires;      // in the order first found
  std::vector<std::string> requirement_files; // requirements-test.txt and the like (read at run time)
};

// The files the run reads test requirements from (scripts/cell/requirements.py's TEST_FILES).
const std::vector<std::string>& test_requirement_files();

// `python_files`: the library's Python files (init's source list), absolute or under `dir`.
TestSuite find_test_suite(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& python_files);

}  // namespace opmatrix
