// Which PyPI distribution provides a Python import name: cv2 comes from opencv-python-headless,
// PIL from pillow, yaml from pyyaml. One lookup table, read by `opmatrix init` (the
// test_requires: it proposes from a suite's imports) and by the `tests` check (a test file that
// could not be collected for want of a module names the distribution to add), so both name the
// same distribution for the same module.
#pragma once

#include <string>
#include <vector>

namespace opmatrix {

struct ModuleDistribution {
  std::string module;        // the import name the table knows it by: "cv2", "google.protobuf"
  std::string distribution;  // what to install: "opencv-python-headless"
  // Other distributions that provide the same module (opencv-python, opencv-contrib-python):
  // a requirement on any of them provides it too.
  std::vector<std::string> alternatives;
  std::string note;  // why, where the module is not the distribution's own ("" = none)
};

// The table's entry a dotted module falls under (the longest: "torch.testing._internal.common_utils"
// under "torch.testing._internal"), or null where the table does not hold it.
const ModuleDistribution* known_distribution(const std::string& module);

// The entry for a dotted module ("google.protobuf.message" falls under "google.protobuf"; "cv2"
// under "cv2"); for a module the table does not hold: its top name as module and distribution,
// and pytest_NAME (a pytest plugin) as pytest-NAME.
ModuleDistribution distribution_of(const std::string& module);

// A distribution's name as PEP 503 compares them: lower case, runs of '-', '_', '.' one '-'.
std::string normalised_distribution(const std::string& name);

// The distribution named at the start of a requirement ("opencv-python>=4.5; python_version>'3'"
// -> "opencv-python"), normalised.
std::string requirement_name(const std::string& requirement);

// Whether any of `distributions` (requirement or distribution names, any spelling) provides the
// module: its table distribution or one of the alternatives.
bool provided_by(const std::string& module, const std::vector<std::string>& distributions);

}  // namespace opmatrix
