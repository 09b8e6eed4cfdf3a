// What a library declares it requires, as `opmatrix init` reads it from its files without running
// them: the distributions a cell's requirements step installs before its tests (install_requires
// or [project] dependencies, requirements.txt, its test extra, test dependency group and test
// requirement files), so that init proposes no test_requires for what they already bring.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace opmatrix {

// Normalised distribution names ("opencv-python", "scipy"), in the order found, each once.
// `requirement_files`: the test requirement files the run reads (test_suite.h), under dir.
std::vector<std::string> declared_requirements(const std::filesystem::path& dir,
                                               const std::vector<std::string>& requirement_files);

}  // namespace opmatrix
