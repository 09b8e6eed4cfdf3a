// CPU benchmark of opmatrix::deform_conv2d and opmatrix::ms_deform_attn, in one process:
//  - deform_conv2d forward (and backward, for information) against the cell's torchvision
//    (its _C extension dlopen'ed, torchvision::deform_conv2d called through the dispatcher);
//  - ms_deform_attn forward against Deformable-DETR's pure-ATen grid_sample composite
//    (the same composite as cases/reference/ms_deform_attn.cpp).
// Results are checked equal before anything is timed. Prints median times and ratios.
//
// usage: deform_ops_bench [--ops libopmatrix_ops.so] [--torchvision _C.so] [--reps N]
//                         [--threads N] [--dcn N,C,H,W]   (deform_conv2d size; 2,256,32,32)
//                         [--onednn 0]   (torch.backends.mkldnn off: our GEMM falls back to addmm)
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace {

#ifdef OPMATRIX_OPS_LIBRARY_DEFAULT
const char* kDefaultOps = OPMATRIX_OPS_LIBRARY_DEFAULT;
#else
const char* kDefaultOps = "libopmatrix_ops.so";
#endif
#ifdef OPMATRIX_TORCHVISION_EXT_DEFAULT
const char* kDefaultTorchvision = OPMATRIX_TORCHVISION_EXT_DEFAULT;  // bench/kernels/CMakeLists.txt
#else
const char* kDefaultTorchvision =
    "/usr/lib/python3/dist-packages/torchvision/_C.cpython-311-x86_64-linux-gnu.so";
#endif

using DeformConv2dSig = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                   const at::Tensor&, const at::Tensor&, int64_t, int64_t, int64_t,
                                   int64_t, int64_t, int64_t, int64_t, int64_t, bool);
using DeformConv2dBackwardSig = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>(
    const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
    const at::Tensor&, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, bool);
using MsDeformAttnSig = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                   const at::Tensor&, const at::Tensor&, int64_t);

bool load(const std::string& path) {
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) return true;
  std::fprintf(stderr, "cannot load %s: %s\n", path.c_str(), dlerror());
  return false;
}

struct Timing {
  double wall_ms, cpu_ms;  // medians; cpu = process CPU time (all threads)
};

double cpuNowMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Medians of `reps` runs after one warm-up. Wall time is what users see; process CPU time
// is steadier on a shared machine (with one thread the two agree when it is quiet).
Timing measure(const std::function<void()>& f, int reps) {
  f();
  std::vector<double> wall, cpu;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpuNowMs();
    f();
    cpu.push_back(cpuNowMs() - c0);
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

void printTiming(const char* name, const Timing& t) {
  std::printf("  %-12s %9.1f ms wall  %9.1f ms cpu\n", name, t.wall_ms, t.cpu_ms);
}

double maxRelDiff(const at::Tensor& a, const at::Tensor& b) {
  return ((a - b).abs().max() / (b.abs().max() + 1e-30)).item<double>();
}

// Deformable-DETR's ms_deform_attn_core_pytorch (see cases/reference/ms_deform_attn.cpp).
at::Tensor msDeformAttnComposite(const at::Tensor& value, const std::vector<int64_t>& hw,
                                 const at::Tensor& loc, const at::Tensor& attn) {
  const int64_t N = value.size(0), M = value.size(2), D = value.size(3);
  const int64_t Lq = loc.size(1), L = loc.size(3), P = loc.size(4);
  const at::Tensor grids = loc * 2 - 1;
  std::vector<at::Tensor> samples;
  int64_t start = 0;
  for (int64_t l = 0; l < L; ++l) {
    const int64_t H = hw[2 * l], W = hw[2 * l + 1];
    const at::Tensor v = value.narrow(1, start, H * W).flatten(2).transpose(1, 2).reshape({N * M, D, H, W});
    start += H * W;
    samples.push_back(at::grid_sampler_2d(v, grids.select(3, l).transpose(1, 2).flatten(0, 1), 0, 0, false));
  }
  const at::Tensor a = attn.transpose(1, 2).reshape({N * M, 1, Lq, L * P});
  return (at::stack(samples, -2).flatten(-2) * a).sum(-1).view({N, M * D, Lq}).transpose(1, 2).contiguous();
}

struct DcnSize {
  int64_t N = 2, C = 256, H = 32, W = 32;  // C -> C channels, 3x3, pad 1, DCNv2 mask
};

int benchDeformConv2d(const DcnSize& z, bool have_tv, int reps) {
  const int64_t N = z.N, C = z.C, Co = z.C, H = z.H, W = z.W, k = 3;
  auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
  const at::Tensor input = at::randn({N, C, H, W}, gen);
  const at::Tensor weight = at::randn({Co, C, k, k}, gen) * 0.02;
  const at::Tensor offset = at::randn({N, 2 * k * k, H, W}, gen) * 2;
  const at::Tensor mask = at::rand({N, k * k, H, W}, gen);
  const at::Tensor bias = at::randn({Co}, gen);
  const auto ours = c10::Dispatcher::singleton().findSchemaOrThrow("opmatrix::deform_conv2d", "").typed<DeformConv2dSig>();
  const auto ours_bw = c10::Dispatcher::singleton().findSchemaOrThrow("opmatrix::_deform_conv2d_backward", "").typed<DeformConv2dBackwardSig>();
  std::printf("deform_conv2d forward, float32: N=%ld C=%ld->%ld %ldx%ld, 3x3 pad 1, mask (DCNv2)\n",
              N, C, Co, H, W);
  const auto run = [&](const auto& op) { return op.call(input, weight, offset, mask, bias, 1, 1, 1, 1, 1, 1, 1, 1, true); };
  const at::Tensor out = run(ours);
  const Timing t_ours = measure([&] { run(ours); }, reps);
  printTiming("opmatrix", t_ours);
  const at::Tensor grad = at::randn_like(out);
  const auto run_bw = [&](const auto& op) {
    return op.call(grad, input, weight, offset, mask, bias, 1, 1, 1, 1, 1, 1, 1, 1, true);
  };
  if (!have_tv) {
    std::printf("  torchvision  (not loaded: no comparison)\n");
    return 0;
  }
  const auto tv = c10::Dispatcher::singleton().findSchemaOrThrow("torchvision::deform_conv2d", "").typed<DeformConv2dSig>();
  const auto tv_bw = c10::Dispatcher::singleton().findSchemaOrThrow("torchvision::_deform_conv2d_backward", "").typed<DeformConv2dBackwardSig>();
  const double diff = maxRelDiff(out, run(tv));
  const Timing t_tv = measure([&] { run(tv); }, reps);
  printTiming("torchvision", t_tv);
  std::printf("  ours/torchvision = %.2f wall, %.2f cpu (target <= 0.80)   max rel diff %.1e\n",
              t_ours.wall_ms / t_tv.wall_ms, t_ours.cpu_ms / t_tv.cpu_ms, diff);
  int status = diff < 1e-4 ? 0 : 1;
  if (status) std::printf("  RESULTS DIFFER\n");

  const auto g_ours = run_bw(ours_bw);
  const auto g_tv = run_bw(tv_bw);
  const double bw_diff = std::max({maxRelDiff(std::get<0>(g_ours), std::get<0>(g_tv)),
                                   maxRelDiff(std::get<1>(g_ours), std::get<1>(g_tv)),
                                   maxRelDiff(std::get<2>(g_ours), std::get<2>(g_tv)),
                                   maxRelDiff(std::get<3>(g_ours), std::get<3>(g_tv)),
                                   maxRelDiff(std::get<4>(g_ours), std::get<4>(g_tv))});
  const int bw_reps = std::max(1, reps / 2);
  const Timing tb_ours = measure([&] { run_bw(ours_bw); }, bw_reps);
  const Timing tb_tv = measure([&] { run_bw(tv_bw); }, bw_reps);
  std::printf("deform_conv2d backward (information, no target):\n");
  printTiming("opmatrix", tb_ours);
  printTiming("torchvision", tb_tv);
  std::printf("  ours/torchvision = %.2f wall, %.2f cpu   max rel diff %.1e\n",
              tb_ours.wall_ms / tb_tv.wall_ms, tb_ours.cpu_ms / tb_tv.cpu_ms, bw_diff);
  if (bw_diff >= 1e-3) {
    std::printf("  BACKWARD RESULTS DIFFER\n");
    status = 1;
  }
  return status;
}

int benchMsDeformAttn(int reps) {
  const int64_t N = 2, M = 8, D = 32, Lq = 1000, P = 4;
  const std::vector<int64_t> hw{64, 64, 32, 32, 16, 16, 8, 8};
  const int64_t L = static_cast<int64_t>(hw.size()) / 2;
  int64_t S = 0;
  std::vector<int64_t> starts;
  for (int64_t l = 0; l < L; ++l) {
    starts.push_back(S);
    S += hw[2 * l] * hw[2 * l + 1];
  }
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
  const at::Tensor value = at::randn({N, S, M, D}, gen);
  const at::Tensor shapes = at::tensor(hw, at::kLong).view({L, 2});
  const at::Tensor lsi = at::tensor(starts, at::kLong);
  const at::Tensor loc = at::rand({N, Lq, M, L, P, 2}, gen);
  at::Tensor attn = at::rand({N, Lq, M, L, P}, gen);
  attn = attn / attn.sum({3, 4}, true);
  const auto ours = c10::Dispatcher::singleton().findSchemaOrThrow("opmatrix::ms_deform_attn", "").typed<MsDeformAttnSig>();
  std::printf("ms_deform_attn forward, float32: N=%ld levels 64x64/32x32/16x16/8x8 (S=%ld) M=%ld D=%ld "
              "Lq=%ld P=%ld\n", N, S, M, D, Lq, P);
  const double diff = maxRelDiff(ours.call(value, shapes, lsi, loc, attn, 64),
                                 msDeformAttnComposite(value, hw, loc, attn));
  const Timing t_ours = measure([&] { ours.call(value, shapes, lsi, loc, attn, 64); }, reps);
  const Timing t_ref = measure([&] { msDeformAttnComposite(value, hw, loc, attn); }, reps);
  printTiming("opmatrix", t_ours);
  printTiming("composite", t_ref);
  std::printf("  composite/ours = %.1fx wall, %.1fx cpu (target >= 5x)   max rel diff %.1e\n",
              t_ref.wall_ms / t_ours.wall_ms, t_ref.cpu_ms / t_ours.cpu_ms, diff);
  if (diff >= 1e-4) {
    std::printf("  RESULTS DIFFER\n");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string ops = kDefaultOps, tv = kDefaultTorchvision;
  int reps = 7, threads = 0;
  DcnSize dcn;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--ops") ops = argv[i + 1];
    else if (flag == "--torchvision") tv = argv[i + 1];
    else if (flag == "--reps") reps = std::atoi(argv[i + 1]);
    else if (flag == "--threads") threads = std::atoi(argv[i + 1]);
    else if (flag == "--onednn") at::globalContext().setUserEnabledMkldnn(std::atoi(argv[i + 1]) != 0);
    else if (flag == "--dcn") {
      long n, c, h, w;
      if (std::sscanf(argv[i + 1], "%ld,%ld,%ld,%ld", &n, &c, &h, &w) != 4) {
        std::fprintf(stderr, "--dcn wants N,C,H,W\n");
        return 2;
      }
      dcn = DcnSize{n, c, h, w};
    }
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (threads > 0) at::set_num_threads(threads);
  if (!load(ops)) return 2;
  const bool have_tv = !tv.empty() && load(tv);
  std::printf("threads: %d (at::get_num_threads), median of %d runs after a warm-up\n",
              at::get_num_threads(), reps);
  int status = benchDeformConv2d(dcn, have_tv, reps);
  status |= benchMsDeformAttn(reps);
  return status;
}
