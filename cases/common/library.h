// Loading an op library the way a C++ user would (dlopen, RTLD_NOW), with a readable
// failure: the dlerror text plus every mangled symbol in it demangled.
#pragma once

#include <exception>
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

// A malformed call must be rejected. The library these cases load may be the stable-ABI build
// (cross-load, docs/stable-abi.md): its checks cannot throw c10::Error across the stable C shim,
// and torch rethrows them as std::runtime_error. Both are std::exception, and both reach Python
// as RuntimeError; which one a C++ caller catches is the ABI's, not the op's, business.
#define OPMATRIX_EXPECT_REJECTED(statement) EXPECT_THROW(statement, std::exception)
