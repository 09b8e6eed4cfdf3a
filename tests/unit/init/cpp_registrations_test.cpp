#include <gtest/gtest.h>

#include "init/cpp_registrations.h"

namespace opmatrix {

namespace {
std::vector<std::string> names(const SourceRegistrations& r) {
  std::vector<std::string> out;
  for (const auto& op : r.ops) out.push_back(op.ns + "::" + op.name);
  return out;
}
}  // namespace

TEST(CppRegistrations, LibraryBlockWithMultiLineSchemas) {
  const auto r = find_cpp_registrations(R"src(
#include <torch/library.h>
TORCH_LIBRARY(mylib, m) {
  m.def("box_area(Tensor boxes) -> Tensor");
  m.def("box_iou(Tensor a, "
        "Tensor b) -> Tensor");
  m.def(
      "nms(Tensor dets,"
      " Tensor scores, float iou_threshold) -> Tensor");
  m.def("box_iou.out(Tensor a, Tensor b, *, Tensor(a!) out) -> Tensor(a!)");
  m.impl("box_area", &box_area);  // not a definition
}
)src");
  EXPECT_EQ(names(r), (std::vector<std::string>{"mylib::box_area", "mylib::box_iou", "mylib::nms", "mylib::box_iou"}));
  EXPECT_EQ(r.ops[1].schema, "box_iou(Tensor a, Tensor b) -> Tensor");
  EXPECT_EQ(r.ops[2].schema, "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor");
  EXPECT_EQ(r.ops[2].line, 7);
  EXPECT_EQ(r.namespaces, std::vector<std::string>{"mylib"});
  EXPECT_FALSE(r.pybind11_module);
}

TEST(CppRegistrations, FragmentsStableAndSelectiveSchemasWithAnyLibraryName) {
  const auto r = find_cpp_registrations(R"src(
TORCH_LIBRARY_FRAGMENT(xf, lib) {
  lib.def(TORCH_SELECTIVE_SCHEMA("xf::attn(Tensor q) -> Tensor"));
  lib.def(torch::schema("xf::fused(Tensor x) -> Tensor", c10::AliasAnalysisKind::PURE_FUNCTION));
  lib.def("plain", &plain);
}
STABLE_TORCH_LIBRARY(stab, m) { m.def("sin(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(xf, CUDA, m) { m.impl("attn", &attn_cuda); }
)src");
  EXPECT_EQ(names(r), (std::vector<std::string>{"xf::attn", "xf::fused", "xf::plain", "stab::sin"}));
  EXPECT_EQ(r.ops[0].schema, "attn(Tensor q) -> Tensor");
  EXPECT_EQ(r.ops[2].schema, "") << "m.def(\"name\", fn) infers the schema";
}

TEST(CppRegistrations, CommentedOutCodeAndPybindDefsAreNoOps) {
  const auto r = find_cpp_registrations(R"src(
// TORCH_LIBRARY(old, m) { m.def("gone(Tensor x) -> Tensor"); }
/* TORCH_LIBRARY(older, m) {
  m.def("gone(Tensor x) -> Tensor");
} */
#define TORCH_LIBRARY(ns, m) static void init_##ns(torch::Library& m)
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("ms_sum", &ms_sum, "sum over S");
}
)src");
  EXPECT_TRUE(r.ops.empty());
  EXPECT_TRUE(r.namespaces.empty());
  EXPECT_TRUE(r.pybind11_module);
}

TEST(CppRegistrations, ComputedSchemasAreCountedNotGuessed) {
  const auto r = find_cpp_registrations("TORCH_LIBRARY(a, m) { m.def(kSchema); m.def(\"b(Tensor x) -> Tensor\"); }");
  EXPECT_EQ(names(r), std::vector<std::string>{"a::b"});
  EXPECT_EQ(r.unread_defs, 1);
}

// torch-scatter's form: the legacy API, the namespace in every name.
TEST(CppRegistrations, RegisterOperatorsChains) {
  const auto r = find_cpp_registrations(R"src(
static auto registry = torch::RegisterOperators()
                           .op("torch_scatter::scatter_sum", &scatter_sum)
                           .op("torch_scatter::scatter_max", &scatter_max);
static auto other = torch::RegisterOperators().op(
    torch::RegisterOperators::options().schema("legacy::f(Tensor x) -> Tensor").kernel<F>(DispatchKey::CPU));
static auto bad = torch::RegisterOperators().op("unqualified", &f);
)src");
  EXPECT_EQ(names(r), (std::vector<std::string>{"torch_scatter::scatter_sum", "torch_scatter::scatter_max", "legacy::f"}));
  EXPECT_EQ(r.ops[2].schema, "f(Tensor x) -> Tensor");
}

TEST(OpFromSchema, NamesAndNamespaces) {
  EXPECT_EQ(op_from_schema("  ns::op.overload (Tensor x)  ->  Tensor ", "", 1)->schema, "op.overload(Tensor x) -> Tensor");
  EXPECT_EQ(op_from_schema("ns::op.overload(Tensor x) -> Tensor", "", 1)->name, "op");
  EXPECT_EQ(op_from_schema("op(Tensor x) -> Tensor", "lib", 1)->ns, "lib");
  EXPECT_FALSE(op_from_schema("op(Tensor x) -> Tensor", "", 1)) << "no namespace";
  EXPECT_FALSE(op_from_schema("not an op", "lib", 1));
}

}  // namespace opmatrix
