// Compile errors from C++ APIs torch removed (diagnose/torch_cxx_api_rules.cpp): each row of the
// table on the compiler's own words, g++ and nvcc; and each old-API source of
// tests/data/torch_cxx_api on the log that compiling it against the first torch without the API
// really gave (g++ 12 here, nvcc 13.0 on a GPU machine; see that folder's README.md).
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "diagnose/diagnose.h"

namespace opmatrix {

namespace {

Diagnosis build_step(const std::string& log) {
  StepFailure f;
  f.step = "build";
  f.log = log;
  f.exit_code = 1;
  f.repro = "pip wheel --no-deps /src";
  return diagnose_step(f);
}

void expect_in(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "\"" << part << "\" not in: " << text;
}

// What one row of the table says of the API it matches, whichever compiler's words matched it.
struct RemovedApi {
  const char* api;          // in the summary
  const char* breaks_in;    // "torch X removed" in the summary, "torch<X" in the fix
  const char* replacement;  // in the fix
};
const RemovedApi kDispatchType{"AT_DISPATCH_*(x.type(), …)", "2.6", "x.scalar_type()"};
const RemovedApi kDispatchAndHalf{"AT_DISPATCH_ALL_TYPES_AND_HALF", "2.6",
                                  "AT_DISPATCH_ALL_TYPES_AND(at::ScalarType::Half"};
const RemovedApi kIsVariable{"Tensor::is_variable()", "2.14", "every tensor is a variable"};
const RemovedApi kIsIntegralType{"isIntegralType(ScalarType) without includeBool", "2.14", "/*includeBool=*/false"};
const RemovedApi kVariant{"c10::variant (c10/util/variant.h)", "2.2", "std::variant"};
const RemovedApi kHoldsAlternative{"c10::variant (c10/util/variant.h)", "2.2", "std::holds_alternative"};
const RemovedApi kAutoGil{"AutoGIL / AutoNoGIL (torch/csrc/utils/auto_gil.h)", "2.2", "pybind11::gil_scoped_acquire"};
const RemovedApi kAutoNoGil{"AutoGIL / AutoNoGIL (torch/csrc/utils/auto_gil.h)", "2.2",
                            "pybind11::gil_scoped_release"};
const RemovedApi kAtCheck{"AT_CHECK", "1.5", "TORCH_CHECK"};

// One compiler's words for one row of the table.
struct RowCase {
  const char* name;
  const RemovedApi* removed;
  const char* where;  // file:line of the code, in summary and fix
  const char* log;
};
void PrintTo(const RowCase& c, std::ostream* os) { *os << c.name; }

const RowCase kRows[] = {
    {"DispatchTypeGxx", &kDispatchType, "/src/csrc/ops.cpp:12",
     "/src/csrc/ops.cpp: In lambda function:\n"
     "/usr/local/lib/python3.12/site-packages/torch/include/ATen/Dispatch.h:199:48: error: cannot convert "
     "‘const at::DeprecatedTypeProperties’ to ‘c10::ScalarType’\n"
     "/usr/local/lib/python3.12/site-packages/torch/include/ATen/Dispatch.h:219:3: note: in expansion of macro "
     "‘AT_DISPATCH_SWITCH’\n"
     "/src/csrc/ops.cpp:12:3: note: in expansion of macro ‘AT_DISPATCH_FLOATING_TYPES’\n"},
    // The real case (a multi-scale deformable attention kernel, torch 2.15 from PyPI).
    {"DispatchTypeNvcc", &kDispatchType, "/tmp/pip-req-build/src/cuda/ms_deform_attn_cuda.cu:65",
     "/tmp/pip-req-build/src/cuda/ms_deform_attn_cuda.cu(65): error: no suitable conversion function from "
     "\"const at::DeprecatedTypeProperties\" to \"c10::ScalarType\" exists\n"},
    {"DispatchAndHalfGxx", &kDispatchAndHalf, "/src/csrc/ops.cpp:5",
     "/src/csrc/ops.cpp:5:3: error: 'AT_DISPATCH_ALL_TYPES_AND_HALF' was not declared in this scope; did you "
     "mean 'AT_DISPATCH_ALL_TYPES_AND2'?\n"},
    {"DispatchAndHalfNvcc", &kDispatchAndHalf, "/src/csrc/ops.cu:5",
     "/src/csrc/ops.cu(5): error: identifier \"AT_DISPATCH_ALL_TYPES_AND_HALF\" is undefined\n"},
    {"IsVariableGxx", &kIsVariable, "/src/csrc/ops.cpp:4",
     "/src/csrc/ops.cpp:4:50: error: ‘const class at::Tensor’ has no member named ‘is_variable’\n"},
    {"IsVariableNvcc", &kIsVariable, "/src/csrc/ops.cu:4",
     "/src/csrc/ops.cu(4): error: class \"at::Tensor\" has no member \"is_variable\"\n"},
    {"IsIntegralTypeGxx", &kIsIntegralType, "/src/csrc/ops.cpp:4",
     "/src/csrc/ops.cpp:4:66: error: too few arguments to function ‘bool c10::isIntegralType(ScalarType, bool)’\n"},
    {"IsIntegralTypeNvcc", &kIsIntegralType, "/src/csrc/ops.cu:4",
     "/src/csrc/ops.cu(4): error: too few arguments in function call\n"
     "  bool is_integral(const at::Tensor& x) { return at::isIntegralType(x.scalar_type()); }\n"},
    {"VariantHeaderGxx", &kVariant, "/src/csrc/ops.cpp:2",
     "/src/csrc/ops.cpp:2:10: fatal error: c10/util/variant.h: No such file or directory\n"},
    {"VariantHeaderClang", &kVariant, "/src/csrc/ops.cpp:2",
     "/src/csrc/ops.cpp:2:10: fatal error: 'c10/util/variant.h' file not found\n"},
    {"VariantNameGxx", &kVariant, "/src/csrc/ops.cpp:6",
     "/src/csrc/ops.cpp:6:21: error: ‘variant’ in namespace ‘c10’ does not name a template type\n"},
    {"VariantNameNvcc", &kVariant, "/src/csrc/ops.cu:6",
     "/src/csrc/ops.cu(6): error: namespace \"c10\" has no member \"variant\"\n"},
    {"HoldsAlternativeGxx", &kHoldsAlternative, "/src/csrc/ops.cpp:9",
     "/src/csrc/ops.cpp:9:14: error: 'holds_alternative' is not a member of 'c10'\n"},
    {"AutoGilHeaderGxx", &kAutoGil, "/src/csrc/ops.cpp:2",
     "/src/csrc/ops.cpp:2:10: fatal error: torch/csrc/utils/auto_gil.h: No such file or directory\n"},
    {"AutoNoGilNameNvcc", &kAutoNoGil, "/src/csrc/ops.cu:30",
     "/src/csrc/ops.cu(30): error: identifier \"AutoNoGIL\" is undefined\n"},
    {"AtCheckGxx", &kAtCheck, "/src/csrc/ops.cpp:4",
     "/src/csrc/ops.cpp:4:42: error: ‘AT_CHECK’ was not declared in this scope; did you mean ‘DCHECK’?\n"},
    {"AtCheckNvcc", &kAtCheck, "/src/csrc/ops.cu:4", "/src/csrc/ops.cu(4): error: identifier \"AT_CHECK\" is undefined\n"},
};

class TorchCxxApiRow : public ::testing::TestWithParam<RowCase> {};

TEST_P(TorchCxxApiRow, NamesTheApiTheFirstTorchAndTheReplacement) {
  const RowCase& c = GetParam();
  const Diagnosis d = build_step(c.log);
  EXPECT_EQ(d.kind, "torch_api_removed");
  expect_in(d.summary, c.removed->api);
  expect_in(d.summary, std::string("torch ") + c.removed->breaks_in + " removed");
  expect_in(d.summary, c.where);
  expect_in(d.fix, c.removed->replacement);
  expect_in(d.fix, std::string("`torch<") + c.removed->breaks_in + "`");
  expect_in(d.fix, c.where);
  expect_in(d.fix, "opmatrix bisect --cells");
  expect_in(d.fix, "--check build");
}

INSTANTIATE_TEST_SUITE_P(Diagnose, TorchCxxApiRow, ::testing::ValuesIn(kRows),
                         [](const ::testing::TestParamInfo<RowCase>& i) { return std::string(i.param.name); });

// A log recorded from compiling one of tests/data/torch_cxx_api's sources.
struct RecordedLog {
  const char* file;    // under tests/data/torch_cxx_api
  const char* api;     // the row it must be diagnosed as
  const char* where;   // the source's file:line, as the log names it
};
void PrintTo(const RecordedLog& c, std::ostream* os) { *os << c.file; }

const RecordedLog kRecorded[] = {
    {"dispatch_type.gxx-2.6.0.log", "AT_DISPATCH_*(x.type(), …)", "/src/csrc/dispatch_type.cpp:5"},
    {"dispatch_type.nvcc-2.6.0.log", "AT_DISPATCH_*(x.type(), …)", "/src/csrc/dispatch_type.cu:5"},
    // Both compilers first say scalar_t is undeclared: the macro's own error comes second.
    {"dispatch_and_half.gxx-2.6.0.log", "AT_DISPATCH_ALL_TYPES_AND_HALF", "/src/csrc/dispatch_and_half.cpp:5"},
    {"dispatch_and_half.nvcc-2.6.0.log", "AT_DISPATCH_ALL_TYPES_AND_HALF", "/src/csrc/dispatch_and_half.cu:5"},
    {"is_variable.gxx-2.14.1.log", "Tensor::is_variable()", "/src/csrc/is_variable.cpp:4"},
    {"is_variable.nvcc-2.14.1.log", "Tensor::is_variable()", "/src/csrc/is_variable.cu:4"},
    {"is_integral_type.gxx-2.14.1.log", "isIntegralType(ScalarType)", "/src/csrc/is_integral_type.cpp:4"},
    {"is_integral_type.nvcc-2.14.1.log", "isIntegralType(ScalarType)", "/src/csrc/is_integral_type.cu:4"},
    {"c10_variant.gxx-2.2.2.log", "c10::variant", "/src/csrc/c10_variant.cpp:2"},
    {"c10_variant.nvcc-2.2.2.log", "c10::variant", "/src/csrc/c10_variant.cu:2"},
    {"c10_variant_no_header.gxx-2.2.2.log", "c10::variant", "/src/csrc/c10_variant_no_header.cpp:6"},
    {"c10_variant_no_header.nvcc-2.2.2.log", "c10::variant", "/src/csrc/c10_variant_no_header.cu:6"},
    {"auto_gil.gxx-2.2.2.log", "AutoGIL", "/src/csrc/auto_gil.cpp:2"},
    {"auto_gil.nvcc-2.2.2.log", "AutoGIL", "/src/csrc/auto_gil.cu:2"},
    {"at_check.gxx-1.13.log", "AT_CHECK", "/src/csrc/at_check.cpp:4"},
    {"at_check.nvcc-2.6.0.log", "AT_CHECK", "/src/csrc/at_check.cu:4"},
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class TorchCxxApiRecorded : public ::testing::TestWithParam<RecordedLog> {};

TEST_P(TorchCxxApiRecorded, TheSourcesRealCompilerOutputIsDiagnosedAsItsRow) {
  const RecordedLog& c = GetParam();
  const std::string log = read_text(std::string(OPMATRIX_TEST_DATA) + "/torch_cxx_api/" + c.file);
  ASSERT_FALSE(log.empty()) << c.file;
  const Diagnosis d = build_step(log);
  EXPECT_EQ(d.kind, "torch_api_removed");
  expect_in(d.summary, c.api);
  expect_in(d.summary, c.where);
  // Each source uses the one API alone: every error the compiler gave is that API's, and the bound stands.
  EXPECT_EQ(d.summary.find("no removed torch API explains"), std::string::npos) << d.summary;
  expect_in(d.fix, "torch<");
}

INSTANTIATE_TEST_SUITE_P(Diagnose, TorchCxxApiRecorded, ::testing::ValuesIn(kRecorded),
                         [](const ::testing::TestParamInfo<RecordedLog>& i) {
                           std::string name = i.param.file;
                           for (char& ch : name)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

// neural-renderer-pytorch 1.1.3 beside torch 2.6: its .cu file fails on the dispatch macros'
// `x.type()` overload (gone in 2.6), its .cpp file on AT_CHECK (gone in 1.5). Fixing the first
// alone, or bounding torch below 2.6, builds nothing: both are named, the bound is the older break.
TEST(Diagnose, EveryRemovedApiOfTheBuildIsNamedAndTheBoundIsTheOldestBreak) {
  const Diagnosis d = build_step(
      "/build/src/nr/cuda/load_textures_cuda_kernel.cu(134): error: no suitable conversion function from \"const "
      "at::DeprecatedTypeProperties\" to \"c10::ScalarType\" exists\n"
      "            [&] { const auto& the_type = image.type(); … }()\n"
      "/build/src/nr/cuda/rasterize_cuda_kernel.cu(80): error: no suitable conversion function from \"const "
      "at::DeprecatedTypeProperties\" to \"c10::ScalarType\" exists\n"
      "/build/src/nr/cuda/load_textures_cuda.cpp:15:23: error: ‘AT_CHECK’ was not declared in this scope; did you "
      "mean ‘CHECK’?\n");
  EXPECT_EQ(d.kind, "torch_api_removed");
  // The sdist's unpacked folder is left out of the places, as for one API.
  EXPECT_EQ(d.summary.rfind("nr/cuda/load_textures_cuda_kernel.cu:134 uses AT_DISPATCH_*(x.type(), …)", 0), 0u)
      << d.summary;
  expect_in(d.summary, "; and AT_CHECK at nr/cuda/load_textures_cuda.cpp:15 (removed in torch 1.5)");
  EXPECT_EQ(d.summary.find("rasterize_cuda_kernel"), std::string::npos) << "one place per API: " << d.summary;
  expect_in(d.fix, "x.scalar_type()");
  expect_in(d.fix, "at nr/cuda/load_textures_cuda.cpp:15: ");
  expect_in(d.fix, "TORCH_CHECK");
  expect_in(d.fix, "`torch<1.5`");
  EXPECT_EQ(d.fix.find("torch<2.6"), std::string::npos) << d.fix;
}

// torch-unique 1.0.3 beside torch 2.6 (nvcc 12.4's words): line 23 fails on the dispatch macros'
// `x.type()` (gone in 2.6), and nvcc adds two errors of that expansion at the same line; line 22
// fails on `at::zeros(type, sizes)`, which torch 1.13 rejects as 2.6 does. `torch<2.6` would not
// build it: the error no removed API explains is named, and no bound is offered.
TEST(Diagnose, AnErrorNoRemovedApiExplainsTakesAwayTheTorchBound) {
  const Diagnosis d = build_step(
      "      /build/src/cuda/unique_kernel.cu(22): error: no instance of overloaded function \"at::zeros\" matches the "
      "argument list\n"
      "                  argument types are: (at::DeprecatedTypeProperties, {...})\n"
      "      /build/src/cuda/unique_kernel.cu(23): error: no suitable conversion function from \"const "
      "at::DeprecatedTypeProperties\" to \"c10::ScalarType\" exists\n"
      "            [&] { const auto& the_type = src.type(); … }()\n"
      "      /build/src/cuda/unique_kernel.cu(23): error: type name is not allowed\n"
      "      /build/src/cuda/unique_kernel.cu(23): error: expected an expression\n"
      "      16 errors detected in the compilation of \"/build/src/cuda/unique_kernel.cu\".\n");
  EXPECT_EQ(d.kind, "torch_api_removed");
  EXPECT_EQ(d.summary.rfind("cuda/unique_kernel.cu:23 uses AT_DISPATCH_*(x.type(), …)", 0), 0u) << d.summary;
  expect_in(d.summary, "errors no removed torch API explains: cuda/unique_kernel.cu:22: no instance of overloaded "
                       "function \"at::zeros\" matches the argument list");
  EXPECT_EQ(d.summary.find("expected an expression"), std::string::npos) << "line 23's are the macro's: " << d.summary;
  expect_in(d.fix, "x.scalar_type()");
  expect_in(d.fix, "no torch bound is the fix");
  EXPECT_EQ(d.fix.find("torch<"), std::string::npos) << d.fix;
}

TEST(Diagnose, OtherCompileErrorsStayCompileErrors) {
  // A name torch never had, and a torch API that still exists: no row claims them.
  EXPECT_EQ(build_step("/src/csrc/ops.cpp:42:7: error: 'foo' was not declared in this scope\n").kind, "compile_error");
  EXPECT_EQ(build_step("/src/csrc/ops.cu(7): error: identifier \"AT_CHECKED\" is undefined\n").kind, "compile_error");
  EXPECT_EQ(build_step("/src/csrc/ops.cpp:3:10: fatal error: c10/util/variant_other.h: No such file or "
                       "directory\n").kind, "compile_error");
}

TEST(Diagnose, NvccErrorsNoLongerBlameTheHostCompiler) {
  const Diagnosis d = build_step("/src/csrc/ops.cu(12): error: expected a \";\"\n");
  EXPECT_EQ(d.kind, "compile_error");
  EXPECT_EQ(d.fix.find("host compiler"), std::string::npos) << d.fix;
  expect_in(d.fix, "its C++ API differs between releases");
}

TEST(Diagnose, UnsupportedHostCompilerHasItsOwnDiagnosis) {
  // CMake names the compiler it found; nvcc 12.4's host_config.h takes gcc up to 13.
  const Diagnosis d = build_step(
      "-- The CXX compiler identification is GNU 14.2.0\n"
      "-- The CUDA compiler identification is NVIDIA 12.4.131\n"
      "/usr/include/crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions later than 13 "
      "are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check; "
      "however, using an unsupported host compiler may cause compilation failure or incorrect run time execution. "
      "Use at your own risk.\n");
  EXPECT_EQ(d.kind, "unsupported_host_compiler");
  expect_in(d.summary, "(gcc 14)");
  expect_in(d.summary, "gcc up to 13");
  expect_in(d.fix, "-ccbin g++-13");
  expect_in(d.fix, "supports gcc 14");
  // Without CMake's words: the limit alone.
  const Diagnosis bare = build_step(
      "/usr/local/cuda/include/crt/host_config.h:132:2: error: #error -- unsupported GNU version! gcc versions later "
      "than 12 are not supported!\n");
  EXPECT_EQ(bare.kind, "unsupported_host_compiler");
  expect_in(bare.summary, "gcc up to 12");
}

}  // namespace

}  // namespace opmatrix
