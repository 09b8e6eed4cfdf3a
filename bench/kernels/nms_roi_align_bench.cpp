// CPU benchmark of opmatrix::nms and opmatrix::roi_align against the cell's torchvision, in
// one process: torchvision's _C extension and libopmatrix_ops.so are both dlopen'ed and both
// ops are called through the dispatcher (boxed, so torchvision's int or SymInt schemas both
// work) on the same inputs, with the same at::set_num_threads. Results are compared before
// anything is timed. Prints median times and the ratio ours / torchvision.
//
// usage: nms_roi_align_bench [--ops libopmatrix_ops.so] [--torchvision _C.so] [--reps N]
//                            [--threads N[,N…]]   (default: 1 and all cores)
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

bool load(const std::string& path) {
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) return true;
  std::fprintf(stderr, "cannot load %s: %s\n", path.c_str(), dlerror());
  return false;
}

// Calls ns::op boxed with the given arguments and returns its single tensor result.
at::Tensor call(const std::string& qualified, std::vector<c10::IValue> args) {
  const auto op = c10::Dispatcher::singleton().findSchemaOrThrow(qualified.c_str(), "");
  op.callBoxed(&args);
  return args.at(0).toTensor();
}

// Median wall times in ms of `reps` runs of a and of b, after a warm-up of each. Runs
// alternate (a, b, a, b, …) so that load from other processes hits both sides alike.
std::pair<double, double> medianMs(const std::function<void()>& a, const std::function<void()>& b,
                                   int reps) {
  a();
  b();
  std::vector<double> ma, mb;
  const auto time = [](const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  for (int i = 0; i < reps; ++i) {
    ma.push_back(time(a));
    mb.push_back(time(b));
  }
  std::sort(ma.begin(), ma.end());
  std::sort(mb.begin(), mb.end());
  return {ma[ma.size() / 2], mb[mb.size() / 2]};
}

// Detector-like proposals: `objects` objects in an 800 x 1088 image, each with many jittered
// candidate boxes (as an RPN produces), sides 16–256 px; scores uniform.
void proposals(int64_t n, int64_t objects, at::Tensor& boxes, at::Tensor& scores) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(2024);
  const auto f = at::TensorOptions().dtype(at::kFloat);
  const at::Tensor centre = at::rand({objects, 2}, gen, f) * at::tensor({1088.f, 800.f});
  const at::Tensor size = 16 + at::rand({objects, 2}, gen, f) * 240;
  const at::Tensor pick = at::randint(objects, {n}, gen, at::TensorOptions().dtype(at::kLong));
  const at::Tensor c = centre.index_select(0, pick) + at::randn({n, 2}, gen, f) * size.index_select(0, pick) * 0.15;
  const at::Tensor s = size.index_select(0, pick) * (0.8 + 0.4 * at::rand({n, 2}, gen, f));
  boxes = at::cat({c - s / 2, c + s / 2}, 1).contiguous();
  scores = at::rand({n}, gen, f);
}

struct Row {
  std::string what;
  std::pair<double, double> ms;  // torchvision, opmatrix
  std::string check;
};

void print(int threads, const Row& r) {
  std::printf("%-58s threads=%-2d torchvision %9.3f ms   opmatrix %9.3f ms   ratio %.3f   %s\n",
              r.what.c_str(), threads, r.ms.first, r.ms.second, r.ms.second / r.ms.first, r.check.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::string ops = OPMATRIX_OPS_LIBRARY_DEFAULT, tv = OPMATRIX_TORCHVISION_EXT_DEFAULT;
  int reps = 15;
  std::vector<int> thread_counts{1, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--ops") ops = argv[i + 1];
    else if (flag == "--torchvision") tv = argv[i + 1];
    else if (flag == "--reps") reps = std::atoi(argv[i + 1]);
    else if (flag == "--threads") {
      thread_counts.clear();
      std::stringstream list(argv[i + 1]);
      for (std::string t; std::getline(list, t, ',');) thread_counts.push_back(std::atoi(t.c_str()));
    }
  }
  if (!load(tv) || !load(ops)) return 2;
  std::printf("torchvision: %s\nopmatrix:    %s\n", tv.c_str(), ops.c_str());
  thread_counts.erase(std::unique(thread_counts.begin(), thread_counts.end()), thread_counts.end());

  at::Tensor boxes, scores;
  proposals(10000, 300, boxes, scores);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(7);
  const auto f = at::TensorOptions().dtype(at::kFloat);
  // FPN level P2 of an 800 x 1088 image (stride 4), batch 2; 1000 rois in image coordinates.
  const at::Tensor features = at::randn({2, 256, 200, 272}, gen, f);
  at::Tensor rb, rs;
  proposals(1000, 1000, rb, rs);
  const at::Tensor rois = at::cat({at::randint(2, {1000, 1}, gen, f), rb}, 1).contiguous();
  const double scale = 0.25;

  bool all_equal = true;
  for (int threads : thread_counts) {
    at::set_num_threads(threads);
    // nms, IoU 0.5
    const at::Tensor keep_tv = call("torchvision::nms", {boxes, scores, 0.5});
    const at::Tensor keep = call("opmatrix::nms", {boxes, scores, 0.5});
    const bool nms_equal = keep.equal(keep_tv);
    all_equal &= nms_equal;
    Row r{"nms 10000 boxes, IoU 0.5 (kept " + std::to_string(keep.numel()) + ")",
          medianMs([&] { call("torchvision::nms", {boxes, scores, 0.5}); },
                   [&] { call("opmatrix::nms", {boxes, scores, 0.5}); }, reps),
          nms_equal ? "equal" : "DIFFERENT"};
    print(threads, r);

    // roi_align forward: 2x256x200x272, 1000 rois, 7x7, sampling_ratio 2, aligned
    const auto args = [&] {
      return std::vector<c10::IValue>{features, rois, scale, int64_t(7), int64_t(7), int64_t(2), true};
    };
    const at::Tensor out_tv = call("torchvision::roi_align", args());
    const at::Tensor out = call("opmatrix::roi_align", args());
    const double diff = (out - out_tv).abs().max().item<double>();
    all_equal &= diff <= 1e-5;
    char check[64];
    std::snprintf(check, sizeof check, "max|diff| %.2g", diff);
    print(threads, {"roi_align fwd 2x256x200x272, 1000 rois, 7x7, sr 2, aligned",
                    medianMs([&] { call("torchvision::roi_align", args()); },
                             [&] { call("opmatrix::roi_align", args()); }, std::max(3, reps / 3)),
                    check});

    // roi_align backward, for information
    const at::Tensor grad = at::randn(out.sizes(), gen, f);
    const auto bargs = [&] {
      return std::vector<c10::IValue>{grad, rois, scale, int64_t(7), int64_t(7), int64_t(2),
                                      int64_t(256), int64_t(200), int64_t(272), int64_t(2), true};
    };
    const double bdiff = (call("opmatrix::_roi_align_backward", bargs()) -
                          call("torchvision::_roi_align_backward", bargs())).abs().max().item<double>();
    std::snprintf(check, sizeof check, "max|diff| %.2g", bdiff);
    print(threads, {"roi_align bwd (same shapes)",
                    medianMs([&] { call("torchvision::_roi_align_backward", bargs()); },
                             [&] { call("opmatrix::_roi_align_backward", bargs()); }, std::max(3, reps / 3)),
                    check});
  }
  return all_equal ? 0 : 1;
}
