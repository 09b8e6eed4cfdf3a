// Promises inferred from a library's reference cell: its measured kernels are what the library
// promises in its other cells; a kernel missing there too is no red elsewhere, one it has there
// and lacks elsewhere is lost.
#include <gtest/gtest.h>

#include "checks/load/reference_promises.h"

namespace opmatrix {
namespace {

CheckResult cell_check(const std::string& check, Status s) {
  CheckResult c;
  c.check = check;
  c.status = s;
  return c;
}

// registration of `op` with `kernels`; a fail (not_registered) where a promised key is missing.
CheckResult registration(const std::string& op, std::vector<std::string> kernels, bool cuda_cell) {
  CheckResult c = cell_check("registration", Status::pass);
  c.op = op;
  c.kernels = kernels;
  const bool cpu = std::find(kernels.begin(), kernels.end(), "CPU") != kernels.end();
  const bool cuda = std::find(kernels.begin(), kernels.end(), "CUDA") != kernels.end();
  c.message = "lib::" + op + " registration";
  if (!cpu) c.missing_kernels.push_back("CPU");
  if (cuda_cell && !cuda) c.missing_kernels.push_back("CUDA");
  if (!c.missing_kernels.empty()) {
    c.status = Status::fail;
    c.diagnosis = Diagnosis{"not_registered", "users get Could not run", "register the kernel", "", ""};
  }
  return c;
}

CellResult cell(const std::string& id, const std::string& torch, const std::string& cuda, bool builds = true) {
  CellResult r;
  r.cell = {{"id", id}, {"torch", torch}, {"cuda", cuda}, {"project", {{"label", "pypi mylib==1.0"}, {"pypi", "mylib==1.0"}}}};
  r.checks.push_back(cell_check("build", builds ? Status::pass : Status::fail));
  if (builds) r.checks.push_back(cell_check("load", Status::pass));
  return r;
}

}  // namespace

TEST(ReferenceCell, TheNewestTorchWhereItBuildsAndLoadsUnlessOneIsDeclared) {
  CellResult old = cell("a", "2.5.1", "12.4"), newest = cell("b", "2.15.0", "13.2", false), mid = cell("c", "2.6.0", "none");
  EXPECT_EQ(reference_cell({&old, &newest, &mid}).cell, &mid);
  EXPECT_EQ(reference_cell({&old, &newest, &mid}).why, "the newest torch where it builds and loads");
  old.cell["reference"] = true;
  EXPECT_EQ(reference_cell({&old, &newest, &mid}).cell, &old);
  EXPECT_EQ(reference_cell({&newest}).cell, nullptr);
}

TEST(ReferencePromises, AKernelTheReferenceLacksTooIsNoRedElsewhere) {
  std::vector<CellResult> cells = {cell("ref", "2.6.0", "12.4"), cell("other", "2.5.1", "12.4")};
  cells[0].checks.push_back(registration("cpu_op", {"CPU", "Meta"}, true));   // its own red stays
  cells[0].checks.push_back(registration("both", {"CPU", "CUDA"}, true));
  cells[0].checks.push_back(registration("no_kernel", {}, true));  // a schema, no kernel at all
  cells[1].checks.push_back(registration("cpu_op", {"CPU", "Meta"}, true));
  cells[1].checks.push_back(registration("both", {"CPU"}, true));
  cells[1].checks.push_back(registration("no_kernel", {}, true));
  apply_reference_promises(cells);
  EXPECT_EQ(cells[0].checks[2].status, Status::fail) << "the reference is judged by the default promise";
  EXPECT_EQ(cells[1].checks[4].status, Status::pass) << cells[1].checks[4].message;
  EXPECT_NE(cells[1].checks[4].message.find("where it has no CPU, CUDA kernel either"), std::string::npos)
      << cells[1].checks[4].message;
  const CheckResult& inherited = cells[1].checks[2];
  EXPECT_EQ(inherited.status, Status::pass);
  EXPECT_FALSE(inherited.diagnosis);
  EXPECT_NE(inherited.message.find("as in the reference cell ref (torch 2.6.0, the newest torch where it builds and "
                                   "loads), where it has no CUDA kernel either"), std::string::npos)
      << inherited.message;
  const CheckResult& lost = cells[1].checks[3];
  // A schema with no kernel at all in the reference: defined, never implemented in the library's own
  // build — a limit there (nothing lost), not a break.
  EXPECT_EQ(cells[0].checks[4].status, Status::skip) << cells[0].checks[4].message;
  ASSERT_TRUE(cells[0].checks[4].diagnosis);
  EXPECT_EQ(cells[0].checks[4].diagnosis->kind, "schema_without_kernel");
  EXPECT_EQ(lost.status, Status::fail);
  EXPECT_NE(lost.message.find("has it: lost here"), std::string::npos) << lost.message;
}

TEST(ReferencePromises, ACpuReferenceSaysNothingAboutCudaKernels) {
  std::vector<CellResult> cells = {cell("ref", "2.6.0", "none"), cell("cuda", "2.5.1", "12.4")};
  cells[0].checks.push_back(registration("op", {"CPU"}, false));
  cells[1].checks.push_back(registration("op", {"CPU"}, true));
  apply_reference_promises(cells);
  EXPECT_EQ(cells[1].checks[2].status, Status::fail);
}

}  // namespace opmatrix

namespace opmatrix {

TEST(ReferencePromises, ResultsWithoutMeasuredKernelsAreLeftAlone) {
  std::vector<CellResult> cells = {cell("ref", "2.6.0", "12.4"), cell("other", "2.5.1", "12.4")};
  CheckResult old_ref = registration("op", {"CPU"}, true), old_other = registration("op", {"CPU"}, true);
  old_ref.kernels.clear();  // written before results had `kernels`
  old_other.kernels.clear();
  old_other.missing_kernels.clear();
  cells[0].checks.push_back(old_ref);
  cells[1].checks.push_back(old_other);
  apply_reference_promises(cells);
  EXPECT_EQ(cells[1].checks[2].status, Status::fail);
  EXPECT_EQ(cells[1].checks[2].message, "lib::op registration");
}

}  // namespace opmatrix
