#include "common/testbed.h"

#include <ATen/ATen.h>

#include "reference/finite_difference.h"

namespace opmatrix::cases {

void expectClose(const at::Tensor& actual, const at::Tensor& expected, double rtol, double atol,
                 const std::string& what) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  ASSERT_EQ(actual.scalar_type(), expected.scalar_type()) << what;
  const double err = expected.numel() ? (actual - expected).abs().max().item<double>() : 0.0;
  EXPECT_TRUE(at::allclose(actual, expected, rtol, atol)) << what << ": max |diff| = " << err;
}

at::Tensor toMeta(const at::Tensor& t) { return at::empty(t.sizes(), t.options().device(at::kMeta)); }

void expectMetaOf(const at::Tensor& meta, const at::Tensor& cpu) {
  EXPECT_TRUE(meta.is_meta());
  EXPECT_EQ(meta.sizes(), cpu.sizes());
  EXPECT_EQ(meta.scalar_type(), cpu.scalar_type());
}

void expectSameMeta(const at::Tensor& meta, const at::Tensor& cpu, const std::string& what) {
  EXPECT_EQ(meta.sizes(), cpu.sizes()) << what;
  EXPECT_EQ(meta.scalar_type(), cpu.scalar_type()) << what;
  EXPECT_TRUE(meta.is_meta()) << what << ": on " << meta.device() << ", expected meta";
  EXPECT_EQ(meta.is_contiguous(), cpu.is_contiguous()) << what;
}

void expectSameMeta(const std::vector<at::Tensor>& meta, const std::vector<at::Tensor>& cpu,
                    const std::vector<std::string>& what) {
  for (size_t i = 0; i < what.size(); ++i) expectSameMeta(meta.at(i), cpu.at(i), what[i]);
}

void expectFiniteDifferenceGradients(const std::function<double()>& loss,
                                     const std::vector<GradientArg>& args,
                                     const std::string& describe) {
  for (const GradientArg& arg : args) {
    const at::Tensor numeric = reference::numericalGradient(loss, *arg.tensor);
    ASSERT_EQ(arg.analytic.sizes(), numeric.sizes()) << arg.name;
    const double err = (arg.analytic - numeric).abs().max().item<double>();
    EXPECT_TRUE(at::allclose(arg.analytic, numeric, 1e-5, 1e-6))
        << "grad_" << arg.name << ": max |analytic - numeric| = " << err << " (" << describe << ")";
  }
}

}  // namespace opmatrix::cases
