#include "checks/fatbin/cuda_build_judge.h"

#include <algorithm>
#include <optional>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/promises/promises.h"
#include "util/atomic_write.h"

namespace opmatrix {

namespace {

// The CPU-only build, explained: a setup.py whose CUDA extension waits for a visible GPU is
// named by its own line; anything else by what its kind of build must do for CUDA.
Diagnosis cpu_only_diagnosis(const CellContext& ctx) {
  Diagnosis d;
  d.kind = "built_cpu_only";
  d.repro = fmt::format("opmatrix run --cell {}", ctx.cell.id);
  const Project* p = ctx.project();
  const std::string setup = p ? read_text_file(ctx.project_dir_on_host() + "/setup.py") : "";
  const auto gate = setup.find("cuda.is_available()");
  if (gate != std::string::npos) {
    const std::size_t bol = setup.rfind('\n', gate) == std::string::npos ? 0 : setup.rfind('\n', gate) + 1;
    d.evidence = "setup.py: " + setup.substr(bol, setup.find('\n', gate) - bol);  // npos - bol: to the end
    const std::string ignores = setup.find("FORCE_CUDA") == std::string::npos ? " and ignores FORCE_CUDA=1" : "";
    if (!gpu_visible(ctx.result.versions, "")) {
      // What a user's GPU host builds cannot be seen from a build that sees no GPU: a limit of
      // this cell, not the library's break in this torch (pytorch/extension-cpp's setup.py).
      d.kind = kCudaBuildNeedsGpu;
      d.summary = fmt::format("CUDA kernels not checked here: setup.py builds them only where a GPU is visible "
                              "(torch.cuda.is_available() at build time){}, and this cell's build sees none, so it "
                              "built CPU-only",
                              ignores);
      d.fix = "run this cell where a GPU is visible to the build (a GPU runner): the library builds its CUDA kernels "
              "there. Hosts without a GPU get them only if its setup.py gates CUDA on FORCE_CUDA or CUDA_HOME";
      return d;
    }
    d.summary = fmt::format("CUDA promised, built CPU-only: setup.py enables CUDA only when a GPU is visible "
                            "(torch.cuda.is_available() at build time){}; no built library holds device code, though "
                            "this cell's build sees a GPU",
                            ignores);
    d.fix = "enable the CUDA extension when FORCE_CUDA=1 or CUDA_HOME is set (torch.utils.cpp_extension.CUDA_HOME), "
            "not only when a GPU is visible: build machines and CI runners have none";
    return d;
  }
  d.summary = "CUDA promised, built CPU-only: no built library holds device code (no SASS, no PTX)";
  d.fix = p && p->kind == "cmake"   ? "compile the CUDA sources when OPMATRIX_WITH_CUDA=ON (CMAKE_CUDA_ARCHITECTURES is set)"
          : p && p->kind == "wheel" ? "this wheel is a CPU build: a CUDA cell needs the library's CUDA wheel"
                                    : "compile the CUDA sources when FORCE_CUDA=1 (TORCH_CUDA_ARCH_LIST is set)";
  d.evidence = "fatbin: no SASS or PTX in " + fmt::format("{}", fmt::join(ctx.build.libraries, ", "));
  return d;
}

// A package ships host-only libraries next to its CUDA ones: the archs are judged on those
// with device code.
void skip_host_only_libraries(CellContext& ctx, const FatbinTally& tally) {
  for (std::size_t i : tally.host_only_results) {
    CheckResult& c = ctx.result.checks[i];
    if (c.status != Status::fail) continue;
    c.status = Status::skip;
    c.message = c.message.substr(0, c.message.find(' ')) +
                " is a host-only library (no SASS, no PTX): the archs are judged on the libraries that hold device code";
    c.diagnosis.reset();
  }
}

bool follows_from_cpu_only_build(const CheckResult& c) {
  // "ns::op: no CUDA kernel", possibly with what the library promises not to have after it.
  // What follows it in parentheses (nor a CPU kernel, CPU calls served by Autograd, registered once
  // pkg._C is imported) changes nothing: the CUDA kernel is what the CPU-only build lacks.
  static const std::regex cuda_missing(R"(: no CUDA kernel( \(.*)?$)");
  const bool only_cuda_missing = c.check == "registration" && c.status == Status::fail &&
                                 std::regex_search(c.message, cuda_missing);
  return c.check == "fatbin" || only_cuda_missing;
}

}  // namespace

void reconcile_cuda_build(CellContext& ctx, const FatbinTally& tally) {
  if (!ctx.cell.has_cuda() || !ctx.build.built || tally.read == 0) return;
  auto& checks = ctx.result.checks;
  auto build = std::find_if(checks.begin(), checks.end(),
                            [](const CheckResult& c) { return c.check == "build" && c.status == Status::pass; });
  if (build == checks.end()) return;
  if (tally.with_device_code > 0) {
    if (ctx.cell.project)
      build->message += fmt::format(" with CUDA (device code in {} of {} libraries)", tally.with_device_code, tally.read);
    skip_host_only_libraries(ctx, tally);
    return;
  }
  // A CPU variant in a CUDA runtime: the cell's `cuda` describes the runtime, not the library's
  // promise. Judged as CPU-only: what follows from having no device code is by design.
  if (const Project* p = ctx.project()) {
    std::optional<std::string> why = cpu_only_by_design(*p, ctx.project_dir_on_host());
    // A prebuilt wheel was not built here: with no device code in any of its libraries it is the
    // release's CPU build as PyPI hands it to every runtime (torchtext: it never had CUDA code).
    if (!why && !p->wheel.empty() && p->promises.backends.empty())
      why = "its PyPI wheel holds no device code in any library: the release's CPU build, as pip installs it";
    if (why) {
      build->message += fmt::format(" (CPU-only by design: {}; no built library holds device code, as promised)", *why);
      for (auto& c : checks) {
        if (!follows_from_cpu_only_build(c)) continue;
        c.status = c.check == "fatbin" ? Status::skip : Status::pass;
        c.message += fmt::format(" — CPU-only by design ({})", *why);
        c.diagnosis.reset();
      }
      return;
    }
  }
  const Diagnosis d = cpu_only_diagnosis(ctx);
  build->status = d.kind == kCudaBuildNeedsGpu ? Status::skip : Status::fail;
  build->message = d.summary;
  build->diagnosis = d;
  for (auto& c : checks) {
    if (!follows_from_cpu_only_build(c)) continue;
    c.status = Status::skip;
    c.message += " — follows from the CPU-only build (see build)";
    c.diagnosis.reset();
  }
}

}  // namespace opmatrix
