#include "checks/build/cell_lacks.h"

#include <regex>

#include "checks/promises/promises.h"
#include "util/atomic_write.h"

namespace opmatrix {

namespace {

// The last exception line of a Python traceback in the build's log ("OSError: CUDA_HOME
// environment variable is not set…", "NameError: name 'bare_metal_version' is not defined").
std::string last_exception(const std::string& log) {
  static const std::regex exception(R"(^\s*([A-Za-z_][\w.]*(?:Error|Exception): .*)$)");
  std::string last;
  std::size_t at = 0;
  while (at < log.size()) {
    const std::size_t end = std::min(log.find('\n', at), log.size());
    const std::string line = log.substr(at, end - at);
    std::smatch m;
    if (std::regex_match(line, m, exception)) last = m[1].str();
    at = end + 1;
  }
  return last;
}

// A setup.py that stops on CUDA's absence: torch's own "CUDA_HOME environment variable is not
// set" (a CUDAExtension), or its own probe of nvcc's version (flash-attn's and causal-conv1d's
// get_cuda_bare_metal_version) failing.
bool stopped_for_cuda(const std::string& exception) {
  static const std::regex cuda(R"(cuda|nvcc|bare_metal)", std::regex::icase);
  return std::regex_search(exception, cuda);
}

void not_checked(CheckResult& c, const std::string& summary, const std::string& fix) {
  c.status = Status::skip;
  c.message = summary;
  c.diagnosis->summary = summary;
  c.diagnosis->fix = fix;
}

}  // namespace

void excuse_what_the_cell_lacks(CellContext& ctx) {
  if (ctx.result.checks.empty() || !ctx.cell.project) return;
  CheckResult& c = ctx.result.checks.back();
  if (c.check != "build" || c.status != Status::fail || !c.diagnosis) return;
  if (c.diagnosis->kind == "setup_needs_gpu" && !gpu_visible(ctx.result.versions, "")) {
    not_checked(c, "not checked here: " + c.diagnosis->summary + "; this cell's build sees no GPU",
                "run this cell where a GPU is visible to the build (a GPU runner); on hosts without one the library "
                "builds nothing unless its setup.py gates CUDA on FORCE_CUDA or CUDA_HOME instead");
    return;
  }
  if (ctx.cell.has_cuda() || cpu_only_by_design(*ctx.cell.project, ctx.project_dir_on_host())) return;
  const std::string exception = last_exception(read_text_file(ctx.log_path("build")));
  if (exception.empty() || !stopped_for_cuda(exception)) return;
  c.diagnosis->kind = kNeedsCudaToBuild;
  c.diagnosis->evidence = exception;
  not_checked(c,
              "not checked here: a CUDA-only build (its setup.py builds CUDA sources and stops without a CUDA "
              "toolkit: " + exception + "), in a runtime without CUDA",
              "check it in a cell with CUDA; a CPU-only runtime can build it only if its setup.py gains a CPU path");
}

}  // namespace opmatrix
