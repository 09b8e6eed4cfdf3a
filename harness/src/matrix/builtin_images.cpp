#include "matrix/builtin_images.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "matrix/versions.h"
#include "util/suggest.h"

namespace opmatrix {

namespace {

const std::vector<std::string> kSuites = {"bookworm", "trixie", "forky", "sid"};

// Debian's non-free CUDA toolkit, per suite: the only nvcc before CUDA 13 that installs
// without NVIDIA's own repositories (PyPI's cu11/cu12 nvcc wheels hold ptxas, no compiler).
struct DebianToolkit {
  const char* nvcc;
  const char* suite;
};
const DebianToolkit kDebianToolkits[] = {{"11.8", "bookworm"}, {"12.4", "trixie"}};

const char* debian_toolkit_suite(const std::string& nvcc) {
  for (const auto& t : kDebianToolkits)
    if (nvcc == t.nvcc) return t.suite;
  return nullptr;
}

bool older_than(const std::string& version, int major, int minor) {
  const auto v = major_minor(version);
  return v && (v->major < major || (v->major == major && v->minor < minor));
}

}  // namespace

const std::vector<BuiltinImageRecipe>& builtin_image_recipes() {
  static const std::vector<BuiltinImageRecipe> recipes = {
      {"debian", "containers/debian.Containerfile", {"suite"},
       "Debian's own torch, torchvision and LibTorch packages (CPU) of a suite"},
      {"debian-cuda", "containers/debian-cuda.Containerfile", {"suite"},
       "Debian contrib's CUDA torch (python3-torch-cuda) with the non-free CUDA toolkit"},
      {"debian-cuda-toolkit", "containers/debian-cuda-toolkit.Containerfile", {"suite"},
       "Debian's CPU torch next to the non-free CUDA toolkit (a compiler torch cannot use)"},
      {"pypi", "containers/pypi.Containerfile",
       {"suite", "nvcc", "nvcc_from", "pip_extra", "torchvision_no_deps", "index_url"},
       "the official PyPI wheels (pip install torch==T torchvision==V) with an nvcc for building extensions"},
  };
  return recipes;
}

const BuiltinImageRecipe* find_builtin_image(const std::string& name) {
  for (const auto& r : builtin_image_recipes())
    if (r.name == name) return &r;
  return nullptr;
}

std::string debian_suite_for_torch(const std::string& torch) {
  const auto v = major_minor(torch);
  if (!v) return "";
  if (v->major == 1 && v->minor == 13) return "bookworm";
  if (v->major == 2 && v->minor == 6) return "trixie";
  if (v->major == 2 && v->minor == 14) return "sid";
  return "";
}

std::vector<BuiltinImageError> resolve_builtin_image(const BuiltinImageRecipe& recipe,
                                                     const std::vector<BuiltinOption>& options, SourcePos where,
                                                     Cell& cell) {
  std::vector<BuiltinImageError> errors;
  auto option = [&](const std::string& key) -> const BuiltinOption* {
    for (const auto& o : options)
      if (o.key == key) return &o;
    return nullptr;
  };
  for (const auto& o : options)
    if (std::find(recipe.options.begin(), recipe.options.end(), o.key) == recipe.options.end())
      errors.push_back({o.pos, fmt::format("the built-in image '{}' takes no option '{}' (it takes: {}){}", recipe.name,
                                           o.key, fmt::join(recipe.options, ", "), did_you_mean(o.key, recipe.options))});
  if (!errors.empty()) return errors;

  cell.image.builtin = recipe.name;
  cell.image.containerfile = recipe.containerfile;
  cell.image.args.clear();
  auto arg = [&](const std::string& k, const std::string& v) {
    if (!v.empty()) cell.image.args.emplace_back(k, v);
  };

  const bool pypi = recipe.name == "pypi";
  std::string suite;
  if (const BuiltinOption* s = option("suite")) {
    suite = s->value;
    if (std::find(kSuites.begin(), kSuites.end(), suite) == kSuites.end())
      errors.push_back({s->pos, fmt::format("unknown Debian suite '{}' (known: {}){}", suite, fmt::join(kSuites, ", "),
                                            did_you_mean(suite, kSuites))});
  } else if (pypi) {
    suite = "bookworm";  // Python 3.11: every torch 2.x release has cp311 wheels
  } else {
    suite = debian_suite_for_torch(cell.torch);
    if (suite.empty())
      errors.push_back({where, fmt::format("no Debian suite ships torch {} (bookworm has 1.13, trixie 2.6, sid 2.14): "
                                           "name the suite (suite: trixie) or take the PyPI wheels (builtin: pypi)",
                                           cell.torch)});
  }
  arg("SUITE", suite);

  if (recipe.name == "debian" && cell.has_cuda())
    errors.push_back({where, fmt::format("the built-in image 'debian' is Debian's CPU torch, but the cell says cuda "
                                         "{}: use debian-cuda (python3-torch-cuda), debian-cuda-toolkit (CPU torch, "
                                         "CUDA compiler) or pypi", cell.cuda)});
  if (recipe.name != "debian" && !cell.has_cuda())
    errors.push_back({where, fmt::format("the built-in image '{}' {}, but the cell says cuda none: {}", recipe.name,
                                         pypi ? "is PyPI's Linux torch wheels, which are CUDA builds"
                                              : "brings a CUDA toolkit",
                                         pypi ? "name their CUDA (e.g. cuda: \"12.4\"), or use builtin debian for a CPU torch"
                                              : "say which CUDA (cuda: \"12.4\") or use builtin debian")});
  if (!pypi || !errors.empty()) return errors;

  arg("TORCH", cell.torch);
  arg("TORCHVISION", cell.torchvision);
  if (const BuiltinOption* o = option("torchvision_no_deps")) {
    if (o->value != "true" && o->value != "false")
      errors.push_back({o->pos, fmt::format("torchvision_no_deps must be true or false, not '{}'", o->value)});
    else if (o->value == "true")
      arg("TORCHVISION_NO_DEPS", "1");
  }

  // The nvcc: the cell's own CUDA from PyPI where PyPI has a whole compiler (13+), else the
  // Debian toolkit of the same major version.
  const auto cuda = major_minor(cell.cuda);
  std::string nvcc;
  if (const BuiltinOption* o = option("nvcc")) {
    nvcc = o->value;
    if (!is_cuda_version(nvcc) || nvcc == "none")
      errors.push_back({o->pos, fmt::format("nvcc '{}' is not a CUDA version such as 12.4", nvcc)});
  } else if (cuda && cuda->major >= 13) {
    nvcc = cell.cuda;
  } else if (cuda && cuda->major == 12) {
    nvcc = "12.4";
  } else if (cuda && cuda->major == 11) {
    nvcc = "11.8";
  } else {
    errors.push_back({where, fmt::format("no built-in nvcc for CUDA {}: say which (nvcc: \"12.4\")", cell.cuda)});
  }
  const auto nvcc_mm = major_minor(nvcc);
  std::string from = nvcc_mm && nvcc_mm->major >= 13 ? "wheel" : "debian";
  const BuiltinOption* from_opt = option("nvcc_from");
  if (from_opt) {
    from = from_opt->value;
    if (from != "wheel" && from != "debian")
      errors.push_back({from_opt->pos, fmt::format("nvcc_from must be wheel or debian, not '{}'{}", from,
                                                   did_you_mean(from, {"wheel", "debian"}))});
  }
  const SourcePos nvcc_pos = option("nvcc") ? option("nvcc")->pos : where;
  if (errors.empty() && from == "wheel" && nvcc_mm && nvcc_mm->major < 13)
    errors.push_back({from_opt ? from_opt->pos : nvcc_pos,
                      fmt::format("PyPI's nvidia-cuda-nvcc wheels carry a whole compiler only from CUDA 13 on (the "
                                  "cu11/cu12 ones hold ptxas alone): for nvcc {} use nvcc_from: debian", nvcc)});
  const char* toolkit_suite = debian_toolkit_suite(nvcc);
  if (errors.empty() && from == "debian" && !toolkit_suite)
    errors.push_back({nvcc_pos, fmt::format("Debian's non-free CUDA toolkit is 11.8 (bookworm) or 12.4 (trixie), not "
                                            "{}: pick one of those, or nvcc_from: wheel for CUDA 13+", nvcc)});
  arg("NVCC", nvcc);
  arg("NVCC_FROM", from);
  if (from == "debian" && toolkit_suite) arg("NVCC_BASE", std::string("debian:") + toolkit_suite);

  // torch before 2.3 was built against numpy 1 but does not pin it: pip would take numpy 2.
  static const std::regex requirement("[A-Za-z0-9._:/+=@,~-]{0,512}");  // what a build arg may hold
  if (const BuiltinOption* o = option("pip_extra")) {
    if (!std::regex_match(o->value, requirement))
      errors.push_back({o->pos, fmt::format("pip_extra '{}' holds characters a build arg may not (spaces, <, >, quotes…): "
                                            "pin with ==, e.g. numpy==1.26.4", o->value)});
    arg("PIP_EXTRA", o->value);
  }
  if (!option("pip_extra") && older_than(cell.torch, 2, 3)) arg("PIP_EXTRA", "numpy==1.26.4");
  if (const BuiltinOption* o = option("index_url")) {
    static const std::regex url("https://[A-Za-z0-9._:/+=@,~-]{1,400}");
    if (!std::regex_match(o->value, url))
      errors.push_back({o->pos, fmt::format("index_url '{}' is not an https:// URL", o->value)});
    arg("PIP_INDEX_URL", o->value);
  }
  return errors;
}

}  // namespace opmatrix
