#include <filesystem>
#include <fstream>
#include <utility>

#include <gtest/gtest.h>

#include "run/cell_runner.h"
#include "util/cuda_arch.h"
#include "checks/versions/versions_judge.h"
#include "testbed.h"

namespace opmatrix {

namespace {
Cell cell_with(std::vector<Expectation> expect) {
  Cell c = testbed::cell("c", "2.5.1", "0.20.1", "12.4");
  c.expect = std::move(expect);
  return c;
}
CheckResult check(const std::string& op, const std::string& name, Status s, const std::string& arch = "") {
  return testbed::check_result(name, s, op, arch);
}
}  // namespace

TEST(Expectations, ExpectedFailureIsXfailAndCellMeetsExpectations) {
  Cell c = cell_with({{"arch", "", "10.0", "xfail", "CUDA 12.4 cannot target sm_100", {}}});
  CellResult r;
  r.checks = {check("", "arch", Status::fail, "10.0"), check("", "arch", Status::pass, "9.0"),
              check("nms", "correctness", Status::pass)};
  apply_expectations(c, r);
  EXPECT_EQ(r.checks[0].status, Status::xfail);
  EXPECT_EQ(r.checks[0].expected_reason, "CUDA 12.4 cannot target sm_100");
  EXPECT_EQ(r.checks[1].status, Status::pass);
  EXPECT_EQ(r.status, Status::xfail);
  EXPECT_TRUE(r.meets_expectations);
}

TEST(Expectations, ExpectedFailureThatPassesIsFlaggedXpass) {
  Cell c = cell_with({{"torchvision", "", "", "xfail", "pairing", {}}});
  CellResult r;
  r.checks = {check("", "torchvision", Status::pass)};
  apply_expectations(c, r);
  EXPECT_EQ(r.checks[0].status, Status::xpass);
  EXPECT_FALSE(r.meets_expectations);
}

TEST(Expectations, SubtestScopedExpectationTouchesOnlyThatSubtest) {
  Expectation x{"opcheck", "nms", "", "xfail", "upper-bound Meta", {}};
  x.subtest = "test_faketensor";
  Cell c = cell_with({x});
  CellResult r;
  r.checks = {check("nms", "opcheck", Status::fail), check("nms", "opcheck", Status::fail)};
  r.checks[0].subtest = "test_faketensor";
  r.checks[1].subtest = "test_aot_dispatch_dynamic";
  apply_expectations(c, r);
  EXPECT_EQ(r.checks[0].status, Status::xfail);
  EXPECT_EQ(r.checks[1].status, Status::fail);
  EXPECT_FALSE(r.meets_expectations);
}

TEST(Expectations, AnEntryWithoutOpLeavesTorchvisionsOpsAlone) {
  Expectation named{"fake-device", "torchvision::nms", "", "xfail", "torchvision's own", {}};
  Cell c = cell_with({{"fake-device", "", "", "xfail", "no fake kernel", {}}, named});
  CellResult r;
  r.checks = {check("scatter_sum", "fake-device", Status::fail), check("torchvision::roi_align", "fake-device", Status::pass),
              check("torchvision::nms", "fake-device", Status::fail)};
  apply_expectations(c, r);
  EXPECT_EQ(r.checks[0].status, Status::xfail);
  EXPECT_EQ(r.checks[1].status, Status::pass) << "not an xpass: the entry is about the library's ops";
  EXPECT_EQ(r.checks[2].status, Status::xfail) << "named, so covered";
  EXPECT_TRUE(r.meets_expectations);
}

TEST(Expectations, OpScopedExpectationTouchesOnlyThatOp) {
  Cell c = cell_with({{"correctness", "nms", "", "xfail", "known", {}}});
  CellResult r;
  r.checks = {check("nms", "correctness", Status::fail), check("roi_align", "correctness", Status::fail)};
  apply_expectations(c, r);
  EXPECT_EQ(r.checks[0].status, Status::xfail);
  EXPECT_EQ(r.checks[1].status, Status::fail);
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_FALSE(r.meets_expectations);
}

TEST(Expectations, UnexpectedCrashFailsTheCell) {
  Cell c = cell_with({});
  CellResult r;
  r.checks = {check("nms", "correctness", Status::crash), check("nms", "meta", Status::skip)};
  apply_expectations(c, r);
  EXPECT_EQ(r.status, Status::crash);
  EXPECT_FALSE(r.meets_expectations);
}

TEST(VersionCheck, AgreeingVersionsPass) {
  Cell c = cell_with({});
  auto probe = nlohmann::json{{"torch", "2.5.1+cu124"}, {"torchvision", "0.20.1+cu124"}, {"torch_cuda", "12.4"},
                              {"nvcc", "12.4.131"}, {"cxx11_abi", false}};
  CheckResult r = check_versions(c, probe);
  EXPECT_EQ(r.status, Status::pass) << r.message;
  EXPECT_NE(r.message.find("_GLIBCXX_USE_CXX11_ABI=0"), std::string::npos);
}

TEST(VersionCheck, MismatchIsAnErrorNamingBothVersions) {
  Cell c = cell_with({});
  auto probe = nlohmann::json{{"torch", "2.7.1+cu126"}, {"torchvision", "0.20.1"}, {"torch_cuda", "12.6"},
                              {"nvcc", "12.4.131"}};
  CheckResult r = check_versions(c, probe);
  EXPECT_EQ(r.status, Status::error);
  EXPECT_NE(r.message.find("torch 2.5.1 declared, 2.7.1+cu126 found"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("CUDA 12.4 declared, torch was built with CUDA 12.6"), std::string::npos) << r.message;
  ASSERT_TRUE(r.diagnosis.has_value());
  EXPECT_EQ(r.diagnosis->kind, "version_mismatch");
}

TEST(VersionCheck, CpuTorchInACudaCellIsAnError) {
  Cell c = cell_with({});
  c.torch = "1.13.1";
  c.torchvision = "0.14.1";
  c.cuda = "11.8";
  auto probe = nlohmann::json{{"torch", "1.13.0a0"}, {"torchvision", "0.14.1a0"}, {"torch_cuda", nullptr}, {"nvcc", "11.8.89"}};
  CheckResult r = check_versions(c, probe);
  EXPECT_EQ(r.status, Status::error);
  EXPECT_EQ(r.message, "CUDA 11.8 declared, but torch was built without CUDA");
}

TEST(VersionCheck, NvccFromTheBuildArgIsWhatCounts) {
  Cell c = cell_with({});
  c.image.args = {{"NVCC", "13.0"}};
  auto probe = nlohmann::json{{"torch", "2.5.1"}, {"torchvision", "0.20.1"}, {"torch_cuda", "12.4"}, {"nvcc", "13.0.88"}};
  EXPECT_EQ(check_versions(c, probe).status, Status::pass);
}

TEST(CudaArch, EverySpellingOfOneArch) {
  using Spelling = std::pair<const char*, const char*>;  // what goes in, what comes out
  for (const auto& [in, out] : {Spelling{"8.0", "80"}, Spelling{"9.0a", "90a"}, Spelling{"12.0", "120"}})
    EXPECT_EQ(cmake_arch(in), out) << in;
  for (const auto& [in, out] : {Spelling{"90a", "9.0a"}, Spelling{"100", "10.0"}, Spelling{"8.6", "8.6"}})
    EXPECT_EQ(dotted_arch(in), out) << in;
  EXPECT_EQ(sm_name("10.0"), "sm_100");
  for (const auto& [in, number] : {std::pair{"sm_90a", 90}, std::pair{"compute_120", 120}, std::pair{"10.0f", 100}})
    EXPECT_EQ(arch_number(in), number) << in;
  EXPECT_EQ(arch_number("sm_99999999999"), -1) << "more digits than an int holds: no arch, no exception";
  EXPECT_TRUE(arch_specific("9.0a"));
  EXPECT_FALSE(arch_specific("9.0"));
  EXPECT_EQ(torch_arch_list({"80", "90a", "100"}), "8.0;9.0a;10.0");
  for (const char* a : {"7.0", "8.6", "9.0a", "10.0", "12.1"}) EXPECT_EQ(dotted_arch(cmake_arch(a)), a);
}

}  // namespace opmatrix

#include "run/cache_key.h"

namespace opmatrix {

TEST(CacheKey, ChangesWithEverythingThatCanChangeAResult) {
  Cell c;
  c.id = "c";
  c.torch = "2.6.0";
  c.torchvision = "0.21.0";
  c.cuda = "none";
  const SourceParts src1 = {{"kernels/ and cases/", "src1"}}, src2 = {{"kernels/ and cases/", "src2"}};
  const std::string k = cell_cache_key(c, "localhost/opmatrix/debian:abc", src1).key;
  EXPECT_EQ(k.size(), 16u);
  EXPECT_EQ(k, cell_cache_key(c, "localhost/opmatrix/debian:abc", src1).key);
  EXPECT_NE(k, cell_cache_key(c, "localhost/opmatrix/debian:abd", src1).key);  // image
  EXPECT_NE(k, cell_cache_key(c, "localhost/opmatrix/debian:abc", src2).key);  // sources
  Cell d = c;
  d.expect.push_back({"build", "", "", "xfail", "why", {}});
  EXPECT_NE(k, cell_cache_key(d, "localhost/opmatrix/debian:abc", src1).key);  // declaration
  EXPECT_EQ(cell_cache_key(c, "", src1).key, "");  // unknown image: nothing is reused
}

// A cell that runs again says which part of its key changed: the image and the version with
// their values, the others (hashes) by name.
TEST(CacheKey, WhatChangedIsNamedPartByPart) {
  Cell c;
  c.id = "c";
  c.torch = "2.6.0";
  c.cuda = "none";
  const SourceParts src = {{"kernels/ and cases/", "k1"}, {"opmatrix's scripts/cell", "s1"}};
  const CacheKey before = cell_cache_key(c, "localhost/opmatrix/debian:abc", src);
  EXPECT_EQ(changed_parts(before.parts, before.parts), "");
  const CacheKey image = cell_cache_key(c, "localhost/opmatrix/debian:def", src);
  EXPECT_EQ(changed_parts(before.parts, image.parts),
            "image (localhost/opmatrix/debian:abc -> localhost/opmatrix/debian:def)");
  const CacheKey scripts = cell_cache_key(c, "localhost/opmatrix/debian:abc",
                                          {{"kernels/ and cases/", "k1"}, {"opmatrix's scripts/cell", "s2"}});
  EXPECT_EQ(changed_parts(before.parts, scripts.parts), "opmatrix's scripts/cell");
  Cell d = c;
  d.torch = "2.6.1";
  const CacheKey both = cell_cache_key(d, "localhost/opmatrix/debian:abc",
                                       {{"kernels/ and cases/", "k2"}, {"opmatrix's scripts/cell", "s1"}});
  EXPECT_EQ(changed_parts(before.parts, both.parts), "kernels/ and cases/, the cell's declaration");
}

TEST(CacheKey, SourcesHashFollowsFileContents) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "opmatrix-sources-hash";
  fs::remove_all(root);
  fs::create_directories(root / "kernels");
  std::ofstream(root / "kernels/a.cpp") << "int a;";
  const SourceParts h1 = source_parts(root.string(), root.string());
  std::ofstream(root / "kernels/a.cpp") << "int b;";
  const SourceParts h2 = source_parts(root.string(), root.string());
  fs::remove_all(root);
  EXPECT_NE(h1[0].second, h2[0].second);
  EXPECT_EQ(h1[1].second, h2[1].second) << "scripts/cell did not change";
}

// A project at the matrix's own folder holds the run's work folder (build/opmatrix) and
// .git: hashing them would make every run a cache miss (the results change the hash).
TEST(CacheKey, TreeHashLeavesOutWhatBuildsAndGitMake) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "opmatrix-tree-hash";
  fs::remove_all(root);
  for (const char* d : {"src", "build/opmatrix", ".git", "dist", "mylib.egg-info", "src/__pycache__"})
    fs::create_directories(root / d);
  std::ofstream(root / "src/op.cpp") << "int a;";
  const std::string h1 = tree_hash(root.string(), {"."});
  for (const char* f : {"build/opmatrix/x.json", ".git/HEAD", "dist/m.whl", "mylib.egg-info/PKG-INFO", "src/__pycache__/m.pyc"})
    std::ofstream(root / f) << "changed";
  EXPECT_EQ(tree_hash(root.string(), {"."}), h1);
  // The run's own results folder, wherever the user put it, is left out when named.
  fs::create_directories(root / "results");
  std::ofstream(root / "results/cell.json") << "{}";
  EXPECT_NE(tree_hash(root.string(), {"."}), h1);
  EXPECT_EQ(tree_hash(root.string(), {"."}, {(root / "results").string()}), h1);
  fs::remove_all(root / "results");
  std::ofstream(root / "src/op.cpp") << "int b;";
  EXPECT_NE(tree_hash(root.string(), {"."}), h1);
  fs::remove_all(root);
}

}  // namespace opmatrix
