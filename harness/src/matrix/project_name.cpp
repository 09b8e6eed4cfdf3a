#include "matrix/project_name.h"

#include <regex>

#include "init/python_package.h"
#include "util/atomic_write.h"

namespace opmatrix {

std::string project_name(const std::filesystem::path& dir) {
  auto text = [&](const char* file) { return read_text_file((dir / file).string()); };
  const SetupFacts facts = read_setup_facts(text("setup.py"), text("setup.cfg"), text("pyproject.toml"));
  if (!facts.dist_name.empty()) return facts.dist_name;
  static const std::regex cmake_project(R"((^|\n)\s*project\s*\(\s*([A-Za-z0-9_.+-]+))", std::regex::icase);
  std::smatch m;
  const std::string cmake = text("CMakeLists.txt");
  return std::regex_search(cmake, m, cmake_project) ? m[2].str() : "";
}

}  // namespace opmatrix
