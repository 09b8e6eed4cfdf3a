#include "checks/build/project_archs.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/build/setup_py_lines.h"
#include "util/atomic_write.h"
#include "util/cuda_arch.h"

namespace opmatrix {

namespace {

// "3.7" from the diagnosis' "cannot compile for compute_37" (or sm_37).
std::string arch_of(const std::string& summary) {
  static const std::regex named(R"((?:compute|sm)_(\d+)(\d)\b)");
  std::smatch m;
  return std::regex_search(summary, m, named) ? m[1].str() + "." + m[2].str() : std::string();
}

// The first line of setup.py that REGEX matches, with its number: "setup.py:19: os.environ[...] = ...".
std::string first_line(const std::string& setup_py, const std::regex& regex) {
  const std::vector<std::string> lines = setup_py_lines(setup_py);
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (std::regex_search(lines[i], regex)) return fmt::format("setup.py:{}: {}", i + 1, without_indent(lines[i]));
  return "";
}

// The line of the project's setup.py that names the arch: a -gencode / compute_37 / sm_37 of its
// own first, else "3.7" in a TORCH_CUDA_ARCH_LIST it sets. The cell sets TORCH_CUDA_ARCH_LIST, so an
// assignment made only where it is unset did not run (rotary-emb 0.5.2: its default list at
// setup.py:74 under `if os.environ.get("TORCH_CUDA_ARCH_LIST", None) is None`, and
// `cc_flag.append("arch=compute_70,code=sm_70")` at line 97, which nvcc 13 refused).
std::string line_naming(const std::string& setup_py, const std::string& arch) {
  const std::string digits = arch.substr(0, arch.find('.')) + arch.substr(arch.find('.') + 1);
  const std::string own = first_line(setup_py, std::regex("(compute|sm)_" + digits + "\\b"));
  if (!own.empty()) return own;
  return first_line(setup_py, std::regex("TORCH_CUDA_ARCH_LIST.*\\b" +
                                         std::regex_replace(arch, std::regex(R"(\.)"), R"(\.)") + "\\b"));
}

}  // namespace

void name_the_projects_own_archs(CellContext& ctx) {
  if (ctx.result.checks.empty() || !ctx.cell.project) return;
  CheckResult& c = ctx.result.checks.back();
  if (c.check != "build" || !c.diagnosis || c.diagnosis->kind != "unsupported_arch") return;
  const std::string arch = arch_of(c.diagnosis->summary);
  const auto& asked = ctx.cell.cuda_archs;
  if (arch.empty() || std::find(asked.begin(), asked.end(), arch) != asked.end()) return;
  const std::string where = line_naming(read_text_file(ctx.project_dir_on_host() + "/setup.py"), arch);
  c.diagnosis->fix = fmt::format(
      "the project asks for {} itself ({}), not this cell (cuda_archs: {}): take the archs from "
      "TORCH_CUDA_ARCH_LIST as torch.utils.cpp_extension does, or drop those this CUDA cannot target",
      sm_name(arch), where.empty() ? "its build sets the archs" : where, fmt::join(asked, ", "));
  if (!where.empty()) c.diagnosis->evidence = where;
}

}  // namespace opmatrix
