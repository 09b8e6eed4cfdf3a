// gpugated: a small op library shaped like the ones users pip-install (docs/projects.md).
// One op, gpugated::scale(Tensor x, float s) -> Tensor (x * s):
//   - the schema and the CPU kernel here, in C++, through <torch/extension.h> (so the build
//     needs Python.h and pybind11, as every torch.utils.cpp_extension project does);
//   - the CUDA kernel in csrc/gpugated_cuda.cu, compiled only when setup.py decides so;
//   - the fake (Meta) kernel in Python: gpugated/ops.py, torch.library.register_fake.
#include <torch/extension.h>
#include <torch/library.h>

namespace gpugated {
namespace {

at::Tensor scale_cpu(const at::Tensor& x_in, double s) {
  TORCH_CHECK(x_in.device().is_cpu(), "gpugated::scale (CPU kernel): x must be a CPU tensor");
  TORCH_CHECK(at::isFloatingType(x_in.scalar_type()), "gpugated::scale: x must be a floating tensor, got ",
              x_in.scalar_type());
  const at::Tensor x = x_in.contiguous();
  at::Tensor out = at::empty_like(x);
  const int64_t n = x.numel();
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "gpugated_scale_cpu", [&] {
    const scalar_t* src = x.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    const scalar_t factor = static_cast<scalar_t>(s);
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i] * factor;
  });
  return out;
}

}  // namespace

TORCH_LIBRARY(gpugated, m) {
  m.def("scale(Tensor x, float s) -> Tensor");
}

TORCH_LIBRARY_IMPL(gpugated, CPU, m) {
  m.impl("scale", &scale_cpu);
}

}  // namespace gpugated

// The Python module gpugated._C: importing it runs the registrations above. It binds nothing.
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "gpugated's operators: torch.ops.gpugated.*";
}
