// The kernel speed sweep (see README.md): every op of libopmatrix_ops.so against its reference
// on shapes from real models, float32 and float64, at each thread count, in one process
// (torchvision's _C extension and libopmatrix_ops.so both dlopen'ed, ops called through the
// dispatcher). Results are compared before anything is timed. Prints one line per case and
// thread count; --json writes the rows for render_sweep.py, which prints the per-op worst /
// median / best ratios and thread scaling and regenerates README.md's figures.
//
// usage: kernel_sweep [--ops libopmatrix_ops.so] [--torchvision _C.so] [--threads 1,2]
//                     [--op nms|roi_align|deform_conv2d|ms_deform_attn]... [--shape TEXT]
//                     [--reps N] [--json rows.json]
// --shape keeps the cases whose shape description contains TEXT.
// Exit status: 0, 1 if any result differs from the reference, 2 on bad usage.
#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sweep/sweep.h"

namespace {

using opmatrix_bench::Case;

struct Row {
  const Case* kase;
  int threads;
  double reference_ms, ours_ms;
  std::string check;
  bool ok;
};

bool load(const std::string& path) {
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) return true;
  std::fprintf(stderr, "kernel_sweep: cannot load %s: %s\n", path.c_str(), dlerror());
  return false;
}

double run_ms(const std::function<at::Tensor()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t half = v.size() / 2;
  return v.size() % 2 ? v[half] : (v[half - 1] + v[half]) / 2;
}

// Checks the results (those two calls are each side's warm-up), then times `reps` runs
// alternating (reference, ours, reference, …) so that load from elsewhere hits both alike.
Row measure(const Case& c, const opmatrix_bench::Prepared& p, int threads, int reps) {
  at::set_num_threads(threads);
  Row row{&c, threads, 0, 0, "", false};
  row.check = p.compare(p.reference(), p.ours(), row.ok);
  std::vector<double> ref, ours;
  for (int i = 0; i < reps; ++i) {
    ref.push_back(run_ms(p.reference));
    ours.push_back(run_ms(p.ours));
  }
  row.reference_ms = median(ref);
  row.ours_ms = median(ours);
  return row;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

// Written to a temporary file and renamed, so an interrupted sweep leaves no half file.
bool write_json(const std::string& path, const std::vector<Row>& rows, const std::string& ops,
                const std::string& tv) {
  std::ostringstream out;
  out << "{\n  \"torch\": " << json_string(TORCH_VERSION) << ",\n  \"ops_library\": "
      << json_string(ops) << ",\n  \"torchvision_extension\": " << json_string(tv)
      << ",\n  \"cpu\": " << json_string(cpu_model())
      << ",\n  \"cores\": " << std::thread::hardware_concurrency() << ",\n  \"rows\": [";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    out << (i ? ",\n" : "\n") << "    {\"op\": " << json_string(r.kase->op)
        << ", \"shape\": " << json_string(r.kase->shape)
        << ", \"dtype\": " << json_string(r.kase->dtype == at::kDouble ? "float64" : "float32")
        << ", \"reference\": " << json_string(r.kase->reference) << ", \"threads\": " << r.threads
        << ", \"reference_ms\": " << r.reference_ms << ", \"ours_ms\": " << r.ours_ms
        << ", \"check\": " << json_string(r.check) << ", \"ok\": " << (r.ok ? "true" : "false") << "}";
  }
  out << "\n  ]\n}\n";
  const std::string tmp = path + ".tmp";
  {
    std::ofstream file(tmp, std::ios::trunc);
    file << out.str();
    if (!file.flush()) {
      std::fprintf(stderr, "kernel_sweep: cannot write %s\n", tmp.c_str());
      return false;
    }
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

int usage(const std::string& why) {
  std::fprintf(stderr, "kernel_sweep: %s\nusage: kernel_sweep [--ops LIB] [--torchvision _C.so] "
               "[--threads 1,2] [--op NAME]... [--shape TEXT] [--reps N] [--json FILE]\n", why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string ops = OPMATRIX_OPS_LIBRARY_DEFAULT, tv = OPMATRIX_TORCHVISION_EXT_DEFAULT, json;
  std::vector<int> thread_counts{1, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  std::vector<std::string> only;
  std::string shape_filter;
  int reps = 0;  // 0: each case's own
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return usage(flag + " needs a value");
    const std::string value = argv[i + 1];
    if (flag == "--ops") ops = value;
    else if (flag == "--torchvision") tv = value;
    else if (flag == "--json") json = value;
    else if (flag == "--op") only.push_back(value);
    else if (flag == "--shape") shape_filter = value;
    else if (flag == "--reps") reps = std::atoi(value.c_str());
    else if (flag == "--threads") {
      thread_counts.clear();
      std::stringstream list(value);
      for (std::string t; std::getline(list, t, ',');) thread_counts.push_back(std::atoi(t.c_str()));
    } else {
      return usage("unknown flag " + flag);
    }
  }
  if (reps < 0) return usage("--reps must be a positive number");
  for (int t : thread_counts) {
    if (t < 1) return usage("--threads wants a comma-separated list of positive numbers");
  }
  thread_counts.erase(std::unique(thread_counts.begin(), thread_counts.end()), thread_counts.end());
  if (!load(tv) || !load(ops)) return 2;

  std::vector<Case> cases;
  for (auto* group : {&opmatrix_bench::nms_cases, &opmatrix_bench::roi_align_cases,
                      &opmatrix_bench::deform_conv2d_cases, &opmatrix_bench::ms_deform_attn_cases}) {
    for (Case& c : group()) {
      const bool op_wanted = only.empty() || std::find(only.begin(), only.end(), c.op) != only.end();
      if (op_wanted && c.shape.find(shape_filter) != std::string::npos) cases.push_back(c);
    }
  }
  if (cases.empty()) return usage("no case matches --op and --shape");
  std::printf("torch %s; torchvision %s; opmatrix %s; %s\n", TORCH_VERSION, tv.c_str(), ops.c_str(),
              cpu_model().c_str());

  std::vector<Row> rows;
  bool all_ok = true;
  for (const Case& c : cases) {
    const opmatrix_bench::Prepared prepared = c.prepare();
    for (int threads : thread_counts) {
      const Row r = measure(c, prepared, threads, reps > 0 ? reps : c.reps);
      all_ok &= r.ok;
      std::printf("%-15s %-7s %-88s t=%d  %-11s %10.3f ms  opmatrix %10.3f ms  ratio %.3f  %s\n",
                  c.op.c_str(), c.dtype == at::kDouble ? "float64" : "float32", c.shape.c_str(),
                  threads, c.reference.c_str(), r.reference_ms, r.ours_ms, r.ours_ms / r.reference_ms,
                  r.check.c_str());
      std::fflush(stdout);
      rows.push_back(r);
    }
  }
  if (!json.empty() && !write_json(json, rows, ops, tv)) return 2;
  return all_ok ? 0 : 1;
}
