#include "checks/build/cell_lacks.h"

#include <filesystem>
#include <regex>

#include "checks/build/setup_py_lines.h"
#include "checks/promises/promises.h"
#include "checks/requirements/index_elsewhere.h"
#include "diagnose/diagnose.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// The last exception line of a Python traceback in the build's log ("OSError: CUDA_HOME
// environment variable is not set…", "NameError: name 'bare_metal_version' is not defined").
std::string last_exception(const std::string& log) {
  // A bare `Exception: …` too (warp-rnnt's `raise Exception(...)`).
  static const std::regex exception(R"(^\s*((?:[A-Za-z_][\w.]*)?(?:Error|Exception): .*)$)");
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
// set" (a CUDAExtension), its own probe of nvcc's version (flash-attn's and causal-conv1d's
// get_cuda_bare_metal_version) failing, a CUDA library it looks for (NVSHMEM, NCCL, cuDNN), or its
// own refusal of a CPU build (warp-rnnt 0.7.0:
// "Exception: CPU version is not implemented"). A compile that fails is none of these.
bool stopped_for_cuda(const std::string& exception) {
  // NVIDIA's CUDA libraries too (deep-ep 1.0.0: "AssertionError: Failed to find NVSHMEM").
  static const std::regex cuda(R"(cuda|nvcc|bare_metal|nvshmem|\bnccl\b|cudnn)", std::regex::icase);
  static const std::regex no_cpu(R"(\bCPU\b.*\bnot (?:implemented|supported|available)\b)", std::regex::icase);
  return std::regex_search(exception, cuda) || std::regex_search(exception, no_cpu);
}

// The switch a setup.py's refusal names for a build without CUDA ("set `WITH_CUDA=0`"), as
// NAME=VALUE; "" where its words name none.
std::string own_switch_without_cuda(const std::string& words) {
  static const std::regex without(R"(without (?:CUDA|GPU|nvcc)[^`'"]*?\bset\s+[`'"]?([A-Z][A-Z0-9_]*=[A-Za-z0-9]+))",
                                  std::regex::icase);
  std::smatch m;
  return std::regex_search(words, m, without) ? m[1].str() : "";
}

// The build's own words that nvcc is not there, before it failed for whatever reason (mamba-ssm
// 2.3.2: "mamba_ssm was requested, but nvcc was not found", then `parse(torch.version.cuda)` of a
// CPU torch's None: "TypeError: expected string or bytes-like object, got 'NoneType'").
std::string said_no_nvcc(const std::string& log) {
  static const std::regex words(R"([^\n]*\bnvcc\b[^\n]*\b(?:was not found|not found|is not (?:installed|available))[^\n]*)",
                                std::regex::icase);
  std::smatch m;
  if (!std::regex_search(log, m, words)) return "";
  std::string line = m[0].str();
  line.erase(0, line.find_first_not_of(" \t"));
  return line;
}

// The header a compile error says is missing ("google/dense_hash_map: No such file or directory").
std::string missing_header(const std::string& summary) {
  static const std::regex no_header(R"(: '?([^\s:']+)'?:? (?:No such file or directory|file not found))");
  std::smatch m;
  return std::regex_search(summary, m, no_header) ? m[1].str() : std::string();
}

// Headers torch, CUDA or Python ship: missing, they are this runtime's answer (DCNv2's TH/TH.h,
// gone from every torch our images hold), a red; any other is a system library the project needs.
bool runtime_header(const std::string& header) {
  static const std::regex runtime(R"(^(ATen|c10|torch|TH|THC|THCUNN|caffe2|pybind11|cuda|cub|thrust|cutlass|cute|nv|)"
                                  R"(cuda_\w+\.h|cublas\w*\.h|cusparse\w*\.h|curand\w*\.h|cufft\w*\.h|)"
                                  R"(cusolver\w*\.h|nvrtc\.h|Python\.h)(/|$))");
  return std::regex_search(header, runtime);
}

// Whether the project's own tree holds the header (then it is the project's include path's fault).
bool in_tree(const std::string& dir, const std::string& header) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return true;  // cannot tell: not the cell's
  int seen = 0;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (++seen > 50000) return true;
    const std::string path = it->path().generic_string();
    if (path.size() >= header.size() + 1 && path.compare(path.size() - header.size(), header.size(), header) == 0 &&
        path[path.size() - header.size() - 1] == '/')
      return true;
  }
  return false;
}

// pip's refusal of a project whose requires-python excludes the cell's Python: "ERROR: Package
// 'lrn-sparseatt' requires a different Python: 3.11.2 not in '>=3.13'".
std::string python_refused(const std::string& log) {
  static const std::regex refused(R"(ERROR: Package '[^']+' requires a different Python: (\S+) not in '([^']+)')");
  std::smatch m;
  return std::regex_search(log, m, refused) ? m[0].str().substr(7) : std::string();
}

// The header of a CUDA library a full toolkit ships (cuRAND, cuBLAS, cuSPARSE, cuFFT, cuSOLVER,
// NVRTC): where a CUDA cell's toolkit lacks it, the image is short, not the library (torch_cluster's
// rw_cuda.cu includes curand.h; the PyPI image's toolkit, assembled from wheels, has no cuRAND).
bool cuda_library_header(const std::string& header) {
  static const std::regex cuda_library(R"(^(curand|cublas|cusparse|cufft|cusolver|nvrtc)\w*\.h$)");
  return std::regex_search(header, cuda_library);
}

// A header of the CUDA toolkit itself (its runtime, driver API, math and library headers, CUB,
// Thrust, cooperative groups): missing in a runtime without CUDA, the sources need CUDA to build.
bool cuda_toolkit_header(const std::string& header) {
  static const std::regex toolkit(R"(^(cuda\w*\.h|cooperative_groups(\.h|/.*)|cub/.*|thrust/.*|device_launch_parameters\.h)$)");
  return cuda_library_header(header) || std::regex_search(header, toolkit);
}

// The test of a visible GPU that a setup.py line stands under (warp-rna 0.3.0's `if not
// torch.cuda.is_available():` above its `raise Exception("CPU version is not implemented")`), or
// that the line makes itself (`assert torch.cuda.is_available(), ...`): that line, trimmed, with its
// number; "" where there is none. The exception's words need not say CUDA: the condition does.
std::string gpu_test_over(const std::string& setup, int line_no) {
  static const std::regex gpu_test(R"(\bcuda\.is_available\(\))");
  static const std::regex opens_block(R"(^\s*(?:el)?if\b|^\s*assert\b)");
  const std::vector<std::string> lines = setup_py_lines(setup);
  if (line_no < 1 || line_no > static_cast<int>(lines.size())) return "";
  auto indent = [](const std::string& l) { return l.find_first_not_of(" \t"); };
  auto said = [&](int i) { return quoted_setup_line(lines, static_cast<std::size_t>(i)); };
  int i = line_no - 1;
  if (std::regex_search(lines[static_cast<std::size_t>(i)], gpu_test)) return said(i);
  // The blocks it stands in, innermost first: each line above it indented less opens one.
  std::size_t depth = indent(lines[static_cast<std::size_t>(i)]);
  for (int k = i - 1; k >= 0 && depth > 0 && depth != std::string::npos; --k) {
    const std::string& l = lines[static_cast<std::size_t>(k)];
    const std::size_t at = indent(l);
    if (at == std::string::npos || l[at] == '#' || at >= depth) continue;
    if (std::regex_search(l, opens_block) && std::regex_search(l, gpu_test)) return said(k);
    depth = at;
  }
  return "";
}

// The build's words that it found no CUDA: CMake's FindCUDA "Specify CUDA_TOOLKIT_ROOT_DIR" (moolib
// 0.0.9b0's tensorpipe), "Could NOT find CUDA" / "CUDAToolkit", no CUDA compiler, nvcc run by name
// and not there.
bool build_found_no_cuda(const Diagnosis& d) {
  static const std::regex no_cuda(R"(FindCUDA(?:Toolkit)?\.cmake|CUDA_TOOLKIT_ROOT_DIR|Could NOT find CUDA)");
  return d.kind == "no_nvcc" || (d.kind == "configure_error" && std::regex_search(d.evidence, no_cuda)) ||
         (d.kind == "missing_program" && d.summary.rfind("the build runs nvcc,", 0) == 0);
}

// The line of setup.py that reads a CUDA switch from the environment (moolib 0.0.9b0:
// `use_cuda = os.environ.get("USE_CUDA", True)`), with its number; "" where none does.
std::string setup_reads_cuda_switch(const std::string& setup) {
  static const std::regex reads(R"(os\.(?:environ\.get|getenv)\(\s*['"]([A-Z_]*CUDA[A-Z_]*)['"]|os\.environ\[\s*['"]([A-Z_]*CUDA[A-Z_]*)['"])");
  const std::vector<std::string> lines = setup_py_lines(setup);
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (std::regex_search(lines[i], reads) && lines[i].find("CUDA_HOME") == std::string::npos &&
        lines[i].find("CUDA_PATH") == std::string::npos)
      return quoted_setup_line(lines, i);
  return "";
}

// Programs every cell image has by contract (its toolchain): missing, the image is short.
bool toolchain_program(const std::string& program) {
  static const std::regex toolchain(R"(^(?:(?:x86_64-linux-gnu-)?(?:gcc|g\+\+|cc|c\+\+|cpp)(?:-\d+)?|ninja|cmake|make|)"
                                    R"(ccache|ld|ar|pkg-config|python3?)$)");
  return std::regex_search(program, toolchain);
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
  const std::string log = read_text_file(ctx.log_path("build"));
  if (const std::string refused = python_refused(log); !refused.empty()) {
    c.diagnosis->kind = kPythonNotSupported;
    c.diagnosis->evidence = refused;
    not_checked(c, "not checked here: the project does not support this cell's Python (" + refused + ")",
                "run it in a cell whose Python its requires-python accepts (Debian trixie's and sid's images have "
                "Python 3.13), or widen requires-python if it does support this one");
    return;
  }
  // The sdist on PyPI is a placeholder whose setup.py stops, saying the package lives on another
  // index (pytorch-quantization 2.2.1: "only a placeholder project on PyPI.org … hosted on NVIDIA
  // Python Package Index … pip install --extra-index-url https://pypi.nvidia.com …"): the run
  // asked the wrong index, an infrastructure error, never the library's red.
  static const std::regex placeholder(R"(placeholder (?:project|package)[^\n]*(?:\n[^\n]*){0,12}?--extra-index-url\s+(\S+))",
                                      std::regex::icase);
  std::smatch elsewhere;
  if (std::regex_search(log, elsewhere, placeholder)) {
    c.status = Status::error;
    c.diagnosis->kind = kIndexElsewhere;
    c.diagnosis->evidence = elsewhere[0].str();
    c.message = c.diagnosis->summary = "not checked: this sdist is a placeholder on PyPI, whose setup.py stops saying "
                                       "the package is on " + elsewhere[1].str() + ", an index this run does not reach";
    c.diagnosis->fix = "check the package from that index (pip install --extra-index-url " + elsewhere[1].str() +
                       "): on a machine that reaches it, name its wheel there";
    return;
  }
  // A setup.py that raises where no GPU is visible, in words that do not say so: its condition does.
  static const std::regex raised_at(R"(^setup\.py:(\d+) )");
  std::smatch at;
  if (c.diagnosis->kind == "setup_py_raised" && ctx.cell.has_cuda() &&
      std::regex_search(c.diagnosis->evidence, at, raised_at)) {
    const std::string test = gpu_test_over(read_text_file(ctx.project_dir_on_host() + "/setup.py"), std::stoi(at[1].str()));
    if (!test.empty()) {
      c.diagnosis->evidence = test + ", then " + c.diagnosis->evidence;
      explain_setup_needs_gpu(c.diagnosis->evidence, *c.diagnosis);
      c.message = c.diagnosis->summary;
    }
  }
  if (c.diagnosis->kind == "setup_needs_gpu" && !gpu_visible(ctx.result.versions, "")) {
    not_checked(c, "not checked here: " + c.diagnosis->summary + "; this cell's build sees no GPU",
                "run this cell where a GPU is visible to the build (a GPU runner); on hosts without one the library "
                "builds nothing unless its setup.py gates CUDA on FORCE_CUDA or CUDA_HOME instead");
    return;
  }
  // setup.py reaching for a prebuilt binary (causal-conv1d's bdist_wheel fetches a wheel from its
  // GitHub releases and builds only on an HTTP error): cells build without network, users with it.
  // CMake's FetchContent / ExternalProject fetching a dependency at configure time (kaldifeat 1.24
  // and fast-rnnt 1.3: pybind11 from GitHub): "error: downloading 'URL' failed".
  // A legacy setup.py's setup_requires, which setuptools fetches with `pip wheel --no-deps -w TMP
  // REQ` while it builds (from PyPI for a user): those not among the project's requirements, whose
  // files the build's pip is given (build_requires.env: horovod 0.28.1's cffi is), fail offline.
  static const std::regex offline(R"(urlopen error .*(?:name resolution|Network is unreachable|Connection refused)[^\n]*)");
  static const std::regex cmake_download(R"(error: downloading '([^']+)' failed)");
  static const std::regex setup_requires(
      R"(Command '\[[^\]\n]*'pip',[^\]\n]*'wheel', '--no-deps', '-w', '[^']*',(?: '--quiet',)? '([^']+)'\]' returned non-zero exit status \d+)");
  std::smatch net;
  std::string reached, fix;
  if (std::regex_search(log, net, setup_requires)) {
    reached = "setuptools fetches setup.py's setup_requires " + net[1].str() + " with pip while it builds";
    fix = "declare " + net[1].str() + " in pyproject.toml's [build-system] requires, which pip installs before it "
          "builds (setup_requires is deprecated); meanwhile: pip install " + net[1].str() + " first, then pip install "
          "--no-build-isolation";
  } else if (std::regex_search(log, net, offline)) {
    reached = net[0].str();
    fix = "build it from source without network: the library's own switch for that (causal-conv1d: "
          "CAUSAL_CONV1D_FORCE_BUILD=TRUE), or in the library, build when the download fails for any reason";
  } else if (std::regex_search(log, net, cmake_download)) {
    reached = "CMake downloads " + net[1].str() + ": " + net[0].str();
    fix = "give the build that dependency without network (CMake's FETCHCONTENT_SOURCE_DIR_<NAME> pointing at a "
          "local copy, or FETCHCONTENT_TRY_FIND_PACKAGE_MODE with it installed), or in the library, find an "
          "installed one (pybind11 is on PyPI) before downloading";
  }
  if (!reached.empty()) {
    c.diagnosis->kind = kBuildNeedsNetwork;
    c.diagnosis->evidence = reached;
    not_checked(c, "not checked here: the build reaches for the network (" + reached + "), and cells build "
                   "without it", fix);
    return;
  }
  const std::string header = c.diagnosis->kind == "compile_error" ? missing_header(c.diagnosis->summary) : "";
  if (ctx.cell.has_cuda() && cuda_library_header(header)) {
    // The image's fault: an infrastructure error ("not checked"), never the library's red.
    c.status = Status::error;
    c.diagnosis->kind = "image_missing_prerequisite";
    c.message = c.diagnosis->summary = "this cell's CUDA toolkit lacks " + header + ", which a CUDA toolkit with that "
                                       "library ships: the image's gap, not the library's (" + c.diagnosis->summary + ")";
    c.diagnosis->fix = "give the image that CUDA library's headers (the toolkit's -dev package, or the NVIDIA wheel "
                       "that ships its include/ folder), then run the cell again";
    return;
  }
  if (!header.empty() && !runtime_header(header) && !in_tree(ctx.project_dir_on_host(), header)) {
    // torchsparse's google/dense_hash_map, from Debian's libsparsehash-dev.
    c.diagnosis->kind = kNeedsSystemHeaders;
    not_checked(c,
                "not checked here: the build needs the system header " + header + ", which neither torch, the "
                "project nor this image provides (" + c.diagnosis->summary + ")",
                "give the cell an image that has it: a Containerfile of yours (image: {containerfile: FILE}, a "
                "copy of the built-in one) that installs the system package providing " + header + " (on Debian, "
                "apt-file search " + header + " names it)");
    return;
  }
  // Before the sources' look (cpu_only_by_design): a missing CUDA header shows they need CUDA
  // whatever their files are called (haste's kernels are *.cu.cc); only a declared CPU promise
  // makes it the library's red.
  if (!ctx.cell.has_cuda() && cuda_toolkit_header(header) && !in_tree(ctx.project_dir_on_host(), header) &&
      ctx.cell.project->promises.backends != std::vector<std::string>{"cpu"}) {
    // Sources that need the CUDA toolkit, compiled without it: haste-pytorch 0.5.0rc0 (a
    // CppExtension with CUDA_HOME's include folder, linking cudart: CUDA-only by its README),
    // diso 0.1.4 (its setup.py's path without CUDA compiles a file that includes cuda_runtime.h).
    c.diagnosis->kind = kNeedsCudaToBuild;
    c.diagnosis->evidence = c.diagnosis->summary;
    not_checked(c,
                "not checked here: a CUDA-only build (its sources need the CUDA toolkit's " + header + ", which a "
                "runtime without CUDA does not have: " + c.diagnosis->summary + "), in a runtime without CUDA",
                "check it in a cell with CUDA; a CPU-only runtime can build it only if its CPU path stops including "
                "CUDA's headers");
    return;
  }
  if (c.diagnosis->kind == "missing_program" && !build_found_no_cuda(*c.diagnosis)) {
    static const std::regex runs(R"(^the build runs (\S+), )");  // explain_missing_program's words
    std::smatch m;
    const std::string program = std::regex_search(c.diagnosis->summary, m, runs) ? m[1].str() : "a program";
    if (toolchain_program(program)) {
      c.status = Status::error;
      c.diagnosis->kind = "image_missing_prerequisite";
      c.message = c.diagnosis->summary = "this cell's image lacks " + program + ", part of the toolchain every cell "
                                         "image has: the image's gap, not the library's";
      c.diagnosis->fix = "rebuild the cell's image (its toolchain layer installs " + program + "), then run the cell again";
      return;
    }
    // mpi4torch 0.1.3 compiles with MPI's mpicc: a system program, like a system library's headers.
    not_checked(c,
                "not checked here: the build runs " + program + ", a program neither torch, the project nor this "
                "image provides (" + c.diagnosis->evidence + ")",
                "give the cell an image that has it: a Containerfile of yours (image: {containerfile: FILE}, a copy of "
                "the built-in one) that installs the system package providing " + program + " (on Debian, apt-file "
                "search bin/" + program + " names it)");
    c.diagnosis->kind = kNeedsSystemProgram;
    return;
  }
  // The build found no CUDA in a runtime without it (moolib 0.0.9b0: tensorpipe's find_package(CUDA)),
  // where the project does not promise a CPU build: its default build is CUDA's. Where setup.py reads
  // a CUDA switch from the environment, a build without CUDA is its users' to ask for.
  if (!ctx.cell.has_cuda() && build_found_no_cuda(*c.diagnosis) &&
      ctx.cell.project->promises.backends != std::vector<std::string>{"cpu"}) {
    const std::string why = c.diagnosis->summary;
    const std::string cuda_switch = setup_reads_cuda_switch(read_text_file(ctx.project_dir_on_host() + "/setup.py"));
    c.diagnosis->kind = kNeedsCudaToBuild;
    c.diagnosis->evidence = why + (cuda_switch.empty() ? "" : "; " + cuda_switch);
    if (!cuda_switch.empty()) {
      not_checked(c,
                  "not checked here: its default build is CUDA's and stops without a CUDA toolkit (" + why + "); a "
                  "build without CUDA is its users' to ask for (" + cuda_switch + "), which `pip install` alone does "
                  "not set, in a runtime without CUDA",
                  "check it in a cell with CUDA; here, by hand, the switch its setup.py reads (" + cuda_switch + ")");
      return;
    }
    not_checked(c, "not checked here: a CUDA-only build (it stops without a CUDA toolkit: " + why + "), in a "
                   "runtime without CUDA",
                "check it in a cell with CUDA; a CPU-only runtime can build it only if its build makes CUDA optional");
    return;
  }
  if (ctx.cell.has_cuda() || cpu_only_by_design(*ctx.cell.project, ctx.project_dir_on_host())) return;
  const std::string exception = last_exception(log);
  if (exception.empty()) return;
  // Its own words that nvcc is missing count only where no compile failed after them.
  const bool cuda_exception = stopped_for_cuda(exception);
  const std::string no_nvcc = cuda_exception || c.diagnosis->kind == "compile_error" ? "" : said_no_nvcc(log);
  if (!cuda_exception && no_nvcc.empty()) return;
  const std::string why = cuda_exception ? exception : no_nvcc + "; then " + exception;
  c.diagnosis->kind = kNeedsCudaToBuild;
  c.diagnosis->evidence = why;
  if (const std::string cpu_switch = own_switch_without_cuda(why); !cpu_switch.empty()) {
    // stable-fast 1.0.5: "AssertionError: Cannot find CUDA installation. If you want to compile
    // without CUDA, set `WITH_CUDA=0`." Its default build is CUDA's, and it has a CPU build a user
    // asks for by hand: not "CUDA-only", and that build is not what `pip install` makes.
    not_checked(c,
                "not checked here: its setup.py's default build is CUDA's and stops without a CUDA toolkit (" + why +
                    "); a build without CUDA is its users' to ask for (" + cpu_switch + "), which `pip install` "
                    "alone does not set, in a runtime without CUDA",
                "check it in a cell with CUDA; here, by hand, its own switch: " + cpu_switch + " pip install ...");
    return;
  }
  not_checked(c,
              "not checked here: a CUDA-only build (its setup.py builds CUDA sources and stops without a CUDA "
              "toolkit: " + why + "), in a runtime without CUDA",
              "check it in a cell with CUDA; a CPU-only runtime can build it only if its setup.py gains a CPU path");
}

}  // namespace opmatrix
