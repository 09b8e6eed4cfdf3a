#include <gtest/gtest.h>

#include "crossload/load_prediction.h"
#include "util/hash.h"

namespace opmatrix {

namespace {

RuntimeExports runtime_with(std::initializer_list<const char*> symbols) {
  RuntimeExports r;
  r.sonames = {"libtorch_cpu.so", "libc10.so", "libstdc++.so.6"};
  r.versions = {"GLIBC_2.2.5", "GLIBCXX_3.4", "GLIBCXX_3.4.30", "CXXABI_1.3"};
  for (const char* s : symbols) r.symbols.insert(Fnv64().add(s).hex());
  return r;
}

LibraryImports stable_build() {
  return {"libopmatrix_ops_stable.so",
          {"libtorch_cpu.so", "libstdc++.so.6", "libc.so.6"},
          {{"torch_parallel_for", ""}, {"aoti_torch_get_dim", ""}, {"_ZSt9terminatev", "GLIBCXX_3.4"}},
          {}};
}

}  // namespace

TEST(LoadPrediction, LoadsWhenEverySonameVersionAndTorchSymbolIsThere) {
  const auto p = predict_load(stable_build(), runtime_with({"torch_parallel_for", "aoti_torch_get_dim"}));
  EXPECT_EQ(p.outcome, "loads");
  EXPECT_EQ(p.missing_count, 0u);
}

TEST(LoadPrediction, AShimSymbolTheOlderTorchLacksIsAnUndefinedSymbol) {
  const auto p = predict_load(stable_build(), runtime_with({"aoti_torch_get_dim"}));
  EXPECT_EQ(p.outcome, "undefined_symbol");
  ASSERT_EQ(p.missing.size(), 1u);
  EXPECT_EQ(p.missing[0], "torch_parallel_for");
  EXPECT_NE(p.reason.find("torch_parallel_for"), std::string::npos);
}

TEST(LoadPrediction, CxxSymbolsAreNamedDemangled) {
  LibraryImports aten{"libopmatrix_ops.so", {"libc10.so"}, {{"_ZN2at4_ops5empty4callEv", ""}}, {}};
  const auto p = predict_load(aten, runtime_with({}));
  EXPECT_EQ(p.outcome, "undefined_symbol");
  EXPECT_EQ(p.missing[0], "at::_ops::empty::call()");
}

TEST(LoadPrediction, AMissingSonameOrSymbolVersionStopsTheLoadFirst) {
  LibraryImports debian_built = stable_build();
  debian_built.needed[0] = "libtorch_cpu.so.2.14";
  auto p = predict_load(debian_built, runtime_with({}));
  EXPECT_EQ(p.outcome, "missing_library");
  EXPECT_EQ(p.missing[0], "libtorch_cpu.so.2.14");

  LibraryImports newer_gcc = stable_build();
  newer_gcc.undefined.push_back({"_ZSt21__glibcxx_assert_failPKciS0_S0_", "GLIBCXX_3.4.32"});
  p = predict_load(newer_gcc, runtime_with({"torch_parallel_for", "aoti_torch_get_dim"}));
  EXPECT_EQ(p.outcome, "missing_library");
  EXPECT_NE(p.missing[0].find("GLIBCXX_3.4.32"), std::string::npos);
}

TEST(LoadPrediction, SystemLibrariesAndPythonNeedNoRuntimeWord) {
  LibraryImports ext{"ext.so", {"libc.so.6", "libm.so.6", "libgcc_s.so.1", "libpthread.so.0"},
                     {{"PyLong_FromLong", ""}, {"_Py_Dealloc", ""}}, {}};
  EXPECT_EQ(predict_load(ext, runtime_with({})).outcome, "loads");
}

TEST(LoadPrediction, ASonameInAFolderOfTheBuildsRunpathIsFound) {
  // Measured: a pip torch 2.5.1 build needs libnvrtc.so.12, which its RPATH finds in the cell
  // contract's /opt/cuda/lib; torch 2.15's runtime has only libnvrtc.so.13 there.
  LibraryImports build{"libopmatrix_ops.so", {"libnvrtc.so.12"}, {}, {"/opt/venv/torch/lib", "/opt/cuda/lib"}};
  RuntimeExports cuda12 = runtime_with({});
  cuda12.folders["/opt/cuda/lib"] = {"libnvrtc.so.12", "libcudart.so.12"};
  EXPECT_EQ(predict_load(build, cuda12).outcome, "loads");
  RuntimeExports cuda13 = runtime_with({});
  cuda13.folders["/opt/cuda/lib"] = {"libnvrtc.so.13"};
  EXPECT_EQ(predict_load(build, cuda13).outcome, "missing_library");
  build.runpath.clear();  // the folder serves only builds that name it
  EXPECT_EQ(predict_load(build, cuda12).outcome, "missing_library");
}

TEST(LoadPrediction, AnUnversionedReferenceBindsToAnyLoadedLibrarysSymbol) {
  // Measured: a stable build with an unversioned std::string::_M_replace reference loads (libstdc++ defines it).
  LibraryImports build = stable_build();
  build.undefined.push_back({"_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE10_M_replaceEmmPKcm", ""});
  EXPECT_EQ(predict_load(build, runtime_with({"torch_parallel_for", "aoti_torch_get_dim"})).outcome, "undefined_symbol");
  EXPECT_EQ(predict_load(build, runtime_with({"torch_parallel_for", "aoti_torch_get_dim",
                                              "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE10_M_replaceEmmPKcm"}))
                .outcome,
            "loads");
}

TEST(LoadPrediction, AgreementComparesLoadingOnly) {
  EXPECT_TRUE(prediction_agrees("loads", "loads"));
  EXPECT_TRUE(prediction_agrees("loads", "not_registered"));  // it loaded; registration is not predicted
  EXPECT_FALSE(prediction_agrees("loads", "undefined_symbol"));
  EXPECT_FALSE(prediction_agrees("undefined_symbol", "crash"));
}

TEST(LoadPrediction, MalformedSurfacesAreNamed) {
  EXPECT_THROW(imports_from_json(nlohmann::json::object()), std::runtime_error);
  EXPECT_THROW(exports_from_json(nlohmann::json::parse(R"({"exports": {"sonames": []}})")), std::runtime_error);
  const auto imports = imports_from_json(nlohmann::json::parse(
      R"({"imports": [{"library": "a.so", "needed": ["libc.so.6"], "undefined": [["f", ""], ["g", "V_1"]]}]})"));
  ASSERT_EQ(imports.size(), 1u);
  EXPECT_EQ(imports[0].undefined[1].second, "V_1");
  EXPECT_THROW(exports_from_json(nlohmann::json::parse(
                   R"({"exports": {"sonames": [], "versions": [], "symbols": [], "folders": []}})")),
               std::runtime_error);
  const auto e = exports_from_json(nlohmann::json::parse(
      R"({"exports": {"sonames": [], "versions": [], "symbols": [], "folders": {"/opt/cuda/lib": ["libnvrtc.so.12"]}}})"));
  EXPECT_EQ(e.folders.at("/opt/cuda/lib").count("libnvrtc.so.12"), 1u);
}

}  // namespace opmatrix
