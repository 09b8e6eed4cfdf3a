#include "doctor/libtorch_inspect.h"

#include <filesystem>
#include <regex>

#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

std::string first_existing(const std::vector<fs::path>& candidates) {
  for (const auto& p : candidates)
    if (fs::exists(p)) return p.string();
  return "";
}

}  // namespace

LibtorchFacts inspect_libtorch(const std::string& root) {
  LibtorchFacts f;
  f.root = root;
  const fs::path r(root);
  if (!fs::is_directory(r)) {
    f.error = "not a folder: " + root;
    return f;
  }
  // A LibTorch zip / pip torch folder (include/, lib/) or a system prefix (/usr).
  const std::string version_h = first_existing({r / "include/torch/csrc/api/include/torch/version.h",
                                                r / "include/torch/version.h"});
  if (!version_h.empty()) {
    // TORCH_VERSION itself is a macro expression; the parts are plain numbers.
    static const std::regex re(R"(#define TORCH_VERSION_MAJOR (\d+)[\s\S]*#define TORCH_VERSION_MINOR (\d+)[\s\S]*#define TORCH_VERSION_PATCH (\d+))");
    std::smatch m;
    const std::string text = read_text_file(version_h);
    if (std::regex_search(text, m, re)) f.version = m[1].str() + "." + m[2].str() + "." + m[3].str();
  }
  std::vector<fs::path> libdirs = {r / "lib", r / "lib/x86_64-linux-gnu", r / "lib64"};
  std::string c10;
  for (const auto& d : libdirs) {
    if (fs::exists(d / "libtorch_cuda.so") || fs::exists(d / "libc10_cuda.so")) f.has_cuda = true;
    if (c10.empty() && fs::exists(d / "libc10.so")) c10 = (d / "libc10.so").string();
  }
  if (!c10.empty()) {
    // The same c10 function mangles differently under each libstdc++ string ABI.
    const std::string bytes = read_text_file(c10);
    if (bytes.find("torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_string") != std::string::npos) f.cxx11_abi = true;
    else if (bytes.find("torchCheckFailEPKcS2_jRKSs") != std::string::npos) f.cxx11_abi = false;
  } else {
    f.error = "no libc10.so under " + root + "/lib";
  }
  f.cmake_prefix = first_existing({r / "share/cmake", r / "lib/x86_64-linux-gnu/cmake"});
  return f;
}

}  // namespace opmatrix
