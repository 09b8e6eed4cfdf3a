// The library's own test suite as `opmatrix init` finds it in its files: a test folder at its
// root holding pytest files, and what every one of its test files and conftest.py imports that a
// cell lacks (each import's distribution from util/python_distributions, the table the `tests`
// check names distributions by), so that init can propose `tests:` and `test_requires:`. Left
// out: the standard library, the library's own modules and the suite's, torch and its family,
// pytest, and what the library's own requirements bring.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace opmatrix {

struct TestRequirement {
  std::string requirement;         // the PyPI name: "opencv-python-headless"
  std::string module;              // what the files import: "cv2", "torch.testing._internal"
  std::vector<std::string> files;  // the files that import it, under the library's folder
  std::string why;                 // "cv2 in test/test_a.py, test/test_b.py, test/test_c.py and 2 more"
};

struct TestSuite {
  std::string folder;                         // "test", "tests"; "" = none found
  int files = 0;                              // test_*.py / *_test.py under it (every one read)
  std::vector<TestRequirement> requires;      // in the order first found
  std::vector<std::string> requirement_files; // requirements-test.txt and the like (read at run time)
};

// The files the run reads test requirements from (scripts/cell/requirements.py's TEST_FILES).
const std::vector<std::string>& test_requirement_files();

// Every test file and conftest.py of the first test folder that has test files is read.
// `own_packages`: the top-level modules the library installs (setup.py's packages, its import
// module, its extensions).
TestSuite find_test_suite(const std::filesystem::path& dir, const std::vector<std::string>& own_packages = {});

}  // namespace opmatrix
