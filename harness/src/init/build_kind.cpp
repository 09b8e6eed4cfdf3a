#include "init/build_kind.h"

#include <regex>

#include <fmt/format.h>

#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

std::string without_hash_comments(const std::string& text) {
  static const std::regex comment("#[^\n]*");
  return std::regex_replace(text, comment, "");
}

bool finds_torch(const std::string& cmake_lists) {
  // CMake commands are case-insensitive, package names are not.
  static const std::regex re(R"([Ff][Ii][Nn][Dd]_[Pp][Aa][Cc][Kk][Aa][Gg][Ee]\s*\(\s*Torch[\s)])");
  return std::regex_search(without_hash_comments(cmake_lists), re);
}

// The PEP 517 backend pyproject.toml names ("" for none): whatever it is (setuptools,
// scikit-build-core, meson-python), `pip install .` is how users build the project.
std::string build_backend(const std::string& pyproject) {
  static const std::regex re(R"(build-backend\s*=\s*["']([A-Za-z0-9_.:]+)["'])");
  std::smatch m;
  const std::string text = without_hash_comments(pyproject);
  return std::regex_search(text, m, re) ? m[1].str() : std::string();
}

}  // namespace

BuildKind detect_build_kind(const fs::path& dir) {
  BuildKind b;
  const bool setup_py = fs::is_regular_file(dir / "setup.py");
  const bool pyproject = fs::is_regular_file(dir / "pyproject.toml");
  const std::string backend = pyproject ? build_backend(read_text_file((dir / "pyproject.toml").string())) : "";
  const bool cmake_lists = fs::is_regular_file(dir / "CMakeLists.txt");
  const bool cmake_torch = cmake_lists && finds_torch(read_text_file((dir / "CMakeLists.txt").string()));
  if (setup_py || !backend.empty()) {
    b.kind = "setuptools";
    b.reason = setup_py ? "setup.py" : fmt::format("pyproject.toml with the build backend {}, no setup.py", backend);
    if (cmake_torch)
      b.reason += fmt::format("; CMakeLists.txt too, but {} is what users pip-install",
                              backend.empty() || backend.rfind("setuptools", 0) == 0 ? "setuptools"
                                                                                     : "pip with its build backend");
    return b;
  }
  if (cmake_torch) {
    b.kind = "cmake";
    b.reason = "CMakeLists.txt with find_package(Torch)";
    return b;
  }
  b.error = fmt::format("no PyTorch op library build in {}: looked for setup.py, pyproject.toml with a build "
                        "backend, and CMakeLists.txt calling find_package(Torch)",
                        dir.string());
  if (cmake_lists) b.error += " (its CMakeLists.txt does not call find_package(Torch))";
  else if (pyproject) b.error += " (its pyproject.toml names no build-backend)";
  return b;
}

}  // namespace opmatrix
