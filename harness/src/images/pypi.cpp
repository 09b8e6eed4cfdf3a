// `image: {builtin: pypi}`: the official PyPI wheels (pip install torch==T torchvision==V) on a
// Debian base, with an nvcc for building extensions (containers/pypi.Containerfile).
#include <regex>

#include <fmt/format.h>

#include "images/debian_suites.h"
#include "images/image_kinds.h"
#include "matrix/versions.h"
#include "util/suggest.h"

namespace opmatrix {

namespace {

// Python 3.11: every torch 2.x release has cp311 wheels.
constexpr const char* kDefaultSuite = "bookworm";
// PyPI's nvidia-cuda-nvcc wheels carry a whole compiler from this CUDA on (the cu11/cu12 ones
// hold ptxas alone); before it the nvcc is the Debian toolkit of the cell's CUDA major.
constexpr int kFirstNvccWheelMajor = 13;
// torch before 2.3 was built against numpy 1 but does not pin it: pip would take numpy 2.
constexpr MajorMinor kNumpyOneBefore{2, 3};
constexpr const char* kNumpyOne = "numpy==1.26.4";

// Measured (docs/containers.md "Measured", "Layers of a pypi image"): 5.99-8.37 GB alone
// (layered: 2.8.0 7.89, 2.9.1 8.15, 2.10.0 8.37 with CUDA 12.8; 2.15.0 with CUDA 13.2 6.79,
// 257 s; 2.5.1 with CUDA 12.4 6.43, 220 s; 2026-11-26); 154-401 s; 25-32 wheels, 2570-3766 MiB,
// + nvcc wheels 109 MiB. With its CUDA's layers present (another minor of the same CUDA, nvcc
// and suite): torch 2.9.1 added 3.37 GB, 2.10.0 3.16 GB (bench/images/layer_cost.py); 154-173 s;
// 1204-1454 MiB. Its largest layer, torch's, 2.55 GB (2.8.0: torch, triton, Python packages).
// Rows for one torch CUDA come first; the row for any is the largest and slowest.
const std::vector<FiguresRow> kFigures = {
    {false, "12.4", {6.43e9, 3.0e9, 220, true, 2.7e9}},
    {false, "13.2", {6.79e9, 3.2e9, 257, true, 2.7e9}},
    {false, "", {8.37e9, 3.95e9, 401, true, 2.7e9}},
    {true, "", {3.4e9, 1.53e9, 175, true, 2.7e9}},
};

// The build args that decide which CUDA layers an image has: images alike in these share them
// (the wheels of one CUDA release are mostly pinned alike).
const char* const kLayerArgs[] = {"NVCC", "NVCC_FROM", "SUITE", "PIP_INDEX_URL"};

// The cells `opmatrix init` proposes; each gets the torchvision pip installs beside its torch
// (matrix/versions.h).
struct InitTorch {
  const char* torch;
  const char* cuda;
  const char* why;
};
const InitTorch kInitTorches[] = {
    {"2.15.0", "13.2",
     "The newest torch on PyPI, with CUDA, and the torchvision pip installs next to it (while a torch has no "
     "torchvision of its own on PyPI yet, the newest one that accepts it): the torchvision check tells whether "
     "the pair works"},
    {"2.5.1", "12.4", "An older torch on PyPI, with CUDA: finds the APIs your library uses that older torch lacks"},
};

bool older_than(const std::string& version, MajorMinor than) {
  const auto v = major_minor(version);
  return v && (v->major < than.major || (v->major == than.major && v->minor < than.minor));
}

// The nvcc version: the `nvcc` option, else the cell's CUDA from PyPI where PyPI has a whole
// compiler, else the Debian toolkit of the same major version.
std::string nvcc_version(const ImageRequest& r, const Cell& cell) {
  if (const BuiltinOption* o = r.option("nvcc")) {
    if (!is_cuda_version(o->value) || o->value == "none")
      r.error(o->pos, fmt::format("nvcc '{}' is not a CUDA version such as 12.4", o->value));
    return o->value;
  }
  const auto cuda = major_minor(cell.cuda);
  if (cuda && cuda->major >= kFirstNvccWheelMajor) return cell.cuda;
  const std::string toolkit = cuda ? debian_toolkit_nvcc(cuda->major) : "";
  if (toolkit.empty())
    r.error(r.where, fmt::format("no built-in nvcc for CUDA {}: say which (nvcc: \"12.4\")", cell.cuda));
  return toolkit;
}

// NVCC, NVCC_FROM (wheel or debian) and, for Debian's toolkit, NVCC_BASE: the suite it is on.
void add_nvcc_args(const ImageRequest& r, Cell& cell) {
  const std::string nvcc = nvcc_version(r, cell);
  const auto nvcc_mm = major_minor(nvcc);
  std::string from = nvcc_mm && nvcc_mm->major >= kFirstNvccWheelMajor ? "wheel" : "debian";
  const BuiltinOption* from_opt = r.option("nvcc_from");
  if (from_opt) {
    from = from_opt->value;
    if (from != "wheel" && from != "debian")
      r.error(from_opt->pos,
              fmt::format("nvcc_from must be wheel or debian, not '{}'{}", from, did_you_mean(from, {"wheel", "debian"})));
  }
  const SourcePos nvcc_pos = r.option("nvcc") ? r.option("nvcc")->pos : r.where;
  if (r.errors.empty() && from == "wheel" && nvcc_mm && nvcc_mm->major < kFirstNvccWheelMajor)
    r.error(from_opt ? from_opt->pos : nvcc_pos,
            fmt::format("PyPI's nvidia-cuda-nvcc wheels carry a whole compiler only from CUDA {} on (the cu11/cu12 "
                        "ones hold ptxas alone): for nvcc {} use nvcc_from: debian", kFirstNvccWheelMajor, nvcc));
  const char* toolkit_suite = debian_toolkit_suite(nvcc);
  if (r.errors.empty() && from == "debian" && !toolkit_suite)
    r.error(nvcc_pos, fmt::format("Debian's non-free CUDA toolkit is {}, not {}: pick one of those, or nvcc_from: "
                                  "wheel for CUDA {}+", debian_toolkits_text(), nvcc, kFirstNvccWheelMajor));
  add_build_arg(cell, "NVCC", nvcc);
  add_build_arg(cell, "NVCC_FROM", from);
  if (from == "debian" && toolkit_suite) add_build_arg(cell, "NVCC_BASE", std::string("debian:") + toolkit_suite);
}

void add_torchvision_args(const ImageRequest& r, Cell& cell) {
  add_build_arg(cell, "TORCH", cell.torch);
  add_build_arg(cell, "TORCHVISION", cell.torchvision);
  if (const BuiltinOption* o = r.option("torchvision_no_deps")) {
    if (o->value != "true" && o->value != "false")
      r.error(o->pos, fmt::format("torchvision_no_deps must be true or false, not '{}'", o->value));
    else if (o->value == "true")
      add_build_arg(cell, "TORCHVISION_NO_DEPS", "1");
  }
}

// PIP_EXTRA (the option, else numpy 1 for a torch built against it) and PIP_INDEX_URL.
void add_pip_args(const ImageRequest& r, Cell& cell) {
  static const std::regex requirement("[A-Za-z0-9._:/+=@,~-]{0,512}");  // what a build arg may hold
  if (const BuiltinOption* o = r.option("pip_extra")) {
    if (!std::regex_match(o->value, requirement))
      r.error(o->pos, fmt::format("pip_extra '{}' holds characters a build arg may not (spaces, <, >, quotes…): "
                                  "pin with ==, e.g. numpy==1.26.4", o->value));
    add_build_arg(cell, "PIP_EXTRA", o->value);
  } else if (older_than(cell.torch, kNumpyOneBefore)) {
    add_build_arg(cell, "PIP_EXTRA", kNumpyOne);
  }
  if (const BuiltinOption* o = r.option("index_url")) {
    static const std::regex url("https://[A-Za-z0-9._:/+=@,~-]{1,400}");
    if (!std::regex_match(o->value, url))
      r.error(o->pos, fmt::format("index_url '{}' is not an https:// URL", o->value));
    add_build_arg(cell, "PIP_INDEX_URL", o->value);
  }
}

class Pypi final : public ImageKind {
 public:
  const BuiltinImageRecipe& recipe() const override { return recipe_; }

  void resolve(const ImageRequest& request, Cell& cell) const override {
    add_build_arg(cell, "SUITE", request.option("suite") ? checked_suite_option(request) : kDefaultSuite);
    if (!cell.has_cuda())
      request.error(request.where, "the built-in image 'pypi' is PyPI's Linux torch wheels, which are CUDA builds, "
                                   "but the cell says cuda none: name their CUDA (e.g. cuda: \"12.4\"), or use "
                                   "builtin debian for a CPU torch");
    if (!request.errors.empty()) return;
    add_torchvision_args(request, cell);
    add_nvcc_args(request, cell);
    add_pip_args(request, cell);
  }

  std::optional<ImageFigures> figures(bool cuda_layers_present, const std::string& cuda) const override {
    return figures_in(kFigures, cuda_layers_present, cuda);
  }

  std::string cuda_layers_key(const Cell& cell) const override {
    std::string key = "pypi cuda=" + cell.cuda;
    for (const auto& [k, v] : cell.image.args)
      for (const char* layer_arg : kLayerArgs)
        if (k == layer_arg) key += "|" + k + "=" + v;
    return key;
  }

  std::vector<InitCell> init_cells() const override {
    std::vector<InitCell> cells;
    for (const auto& t : kInitTorches) {
      const std::string torchvision = pip_torchvision_for(t.torch).value_or("");
      cells.push_back({fmt::format("pypi-torch{}-cu{}", t.torch, t.cuda), t.torch, torchvision, t.cuda,
                       "{builtin: pypi}",
                       fmt::format("pip torch=={} torchvision=={}, nvcc picked from `cuda`", t.torch, torchvision),
                       t.why});
    }
    return cells;
  }

 private:
  BuiltinImageRecipe recipe_{"pypi", "containers/pypi.Containerfile",
                             {"suite", "nvcc", "nvcc_from", "pip_extra", "torchvision_no_deps", "index_url"},
                             "the official PyPI wheels (pip install torch==T torchvision==V) with an nvcc for "
                             "building extensions"};
};

const Pypi kPypi;
const ImageKindRegistrar kRegistrar{kPypi};

}  // namespace

}  // namespace opmatrix
