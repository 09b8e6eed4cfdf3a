#include "common/library.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <regex>

namespace opmatrix::cases {

std::string opsLibraryPath() {
  const char* env = std::getenv("OPMATRIX_OPS_LIBRARY");
  if (env != nullptr && *env != '\0') return env;
  return OPMATRIX_OPS_LIBRARY_DEFAULT;
}

std::string demangleMessage(const std::string& message) {
  std::string out = message;
  static const std::regex mangled(R"(_Z[A-Za-z0-9_]+)");
  for (auto it = std::sregex_iterator(message.begin(), message.end(), mangled);
       it != std::sregex_iterator(); ++it) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> plain(
        abi::__cxa_demangle(it->str().c_str(), nullptr, nullptr, &status), std::free);
    if (status == 0 && plain) out += " [demangled: " + std::string(plain.get()) + "]";
  }
  return out;
}

std::string loadLibrary(const std::string& path) {
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) return "";
  const char* err = dlerror();
  return demangleMessage(err != nullptr ? err : "dlopen failed without a message");
}

const std::string& loadOpsLibrary() {
  static const std::string error = loadLibrary(opsLibraryPath());
  return error;
}

}  // namespace opmatrix::cases
