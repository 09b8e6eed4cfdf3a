// Loading an op library the way a C++ user would (dlopen, RTLD_NOW), with a readable
// failure: the dlerror text plus every mangled symbol in it demangled.
#pragma once

#include <string>

namespace opmatrix::cases {

// Path of libopmatrix_ops.so: $OPMATRIX_OPS_LIBRARY, else the library this build made.
std::string opsLibraryPath();

// dlopen(path, RTLD_NOW | RTLD_GLOBAL). Returns "" on success, else the explained error.
std::string loadLibrary(const std::string& path);

// loadLibrary(opsLibraryPath()), done once per process; returns the cached result.
const std::string& loadOpsLibrary();

// "undefined symbol: _ZN3c10..." -> same text + " [demangled: c10::...]" per symbol.
std::string demangleMessage(const std::string& message);

}  // namespace opmatrix::cases

// First statement after OPMATRIX_CHECK in every test that calls our ops.
#define OPMATRIX_REQUIRE_OPS()                                                  \
  do {                                                                          \
    const std::string& opmatrix_load_error_ = ::opmatrix::cases::loadOpsLibrary(); \
    ASSERT_TRUE(opmatrix_load_error_.empty())                                   \
        << "cannot load the op library " << ::opmatrix::cases::opsLibraryPath() \
        << ": " << opmatrix_load_error_;                                        \
  } while (0)
