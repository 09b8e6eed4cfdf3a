#include "checks/load/system_prerequisites.h"

#include <algorithm>

namespace opmatrix {

namespace {

// Ascend's CANN toolkit and its transformer library (ATB): torch-npu links them, and so do the
// libraries built for it (mindie-turbo 2.0rc1: libascendcl.so, libascend_dump.so, libc_sec.so,
// libplatform.so; ATB's libmki.so, libasdops.so, liblcal.so, libatb_mixops.so).
const std::vector<const char*> kCannLibraries = {
    "libascendcl.so",   "libhccl.so",        "libge_runner.so",  "libgraph.so",   "libacl_op_compiler.so",
    "libacl_tdt_channel.so", "libfmk_parser.so", "libascend_protobuf.so", "libatb.so", "libascend_dump.so",
    "libc_sec.so",      "libplatform.so",    "libmki.so",        "libasdops.so",  "liblcal.so",
    "libatb_mixops.so", "libopapi.so",       "libnnopbase.so",   "libascend_hal.so"};

std::vector<const char*> with_cann(std::vector<const char*> stems) {
  stems.insert(stems.end(), kCannLibraries.begin(), kCannLibraries.end());
  return stems;
}

const SystemPrerequisite kPrerequisites[] = {
    {"FFmpeg",
     {"libavutil.so", "libavcodec.so", "libavformat.so", "libavdevice.so", "libavfilter.so", "libswscale.so",
      "libswresample.so", "libpostproc.so"},
     "apt install ffmpeg (FFmpeg 4 to 8, as the library's README says)", kSystemLibrary},
    // torchaudio 2.1 on loads libsox at run time for its SoX backend and asks users to install it.
    {"SoX", {"libsox.so"}, "apt install libsox-dev (its libsox.so; the library's SoX backend loads it)", kSystemLibrary},
    // fairseq2n: "fairseq2 depends on libsndfile … sudo apt install libsndfile1" (its install guide).
    {"libsndfile", {"libsndfile.so"}, "apt install libsndfile1", kSystemLibrary},
    // Open3D 0.20's libOpen3D.so links OpenGL and EGL (its renderer), which a desktop has and a
    // minimal server or container lacks; libGL.so.1 is one of the system libraries the manylinux
    // policy lets a wheel expect rather than bundle.
    {"OpenGL", {"libGL.so", "libEGL.so", "libGLX.so", "libOpenGL.so", "libGLU.so"},
     "apt install libgl1 libegl1 (OpenGL and EGL: a desktop has them, a server or container may not)", kSystemLibrary},
    // X11's client library, which a desktop has: Open3D 0.20's libOpen3D.so links it beside the
    // torch 2.15 image's Python (bookworm), opencv-python's cv2 (basicsr 1.4.2's requirement) needs
    // libxcb.so.1; the manylinux policy lets a wheel expect them.
    {"X11", {"libX11.so", "libXext.so", "libXrender.so", "libXi.so", "libXrandr.so", "libXcursor.so", "libXinerama.so",
             "libXfixes.so", "libxcb.so"},
     "apt install libx11-6 libxext6 libxrender1 libxcb1 (X11's client libraries: a desktop has them)", kSystemLibrary},
    // NUMA's libnuma.so.1: vLLM's CPU build and SGLang's kernels (mscclpp) link it; vLLM's CPU
    // install guide asks for `apt-get install libnuma-dev`.
    {"libnuma", {"libnuma.so"}, "apt install libnuma1", kSystemLibrary},
    // rdma-core's userspace libraries, for RDMA network adapters (InfiniBand, RoCE, AWS EFA): uccl
    // 0.0.1.post4's p2p module and its NCCL network plugins link libibverbs.so.1; a machine with such
    // adapters has them installed with their driver (Debian's libibverbs1), a container often not.
    {"rdma-core", {"libibverbs.so", "librdmacm.so", "libmlx5.so", "libmlx4.so", "libefa.so"},
     "apt install libibverbs1 librdmacm1 (rdma-core), on a machine with InfiniBand, RoCE or EFA network adapters",
     kSystemLibrary},
    // MPI and Intel's oneCCL, for a run on several processes: xfastertransformer 2.1.2 loads its
    // libxft_comm_helper.so (libmpi.so.12, libmpicxx.so.12, libccl.so.1) only under mpirun, whose
    // users install them (its README's multi-rank set-up); one process never loads it.
    {"MPI", {"libmpi.so", "libmpicxx.so", "libmpi_cxx.so", "libmpifort.so"},
     "install the MPI its library was built for (libmpi.so.12: MPICH or Intel MPI; libmpi.so.40: Open MPI), where "
     "it runs on several processes (mpirun)",
     kSystemLibrary},
    {"oneCCL", {"libccl.so"},
     "install Intel's oneCCL and source its setvars.sh, where it runs on several processes (mpirun)", kSystemLibrary},
    // Open3D 0.20's libOpen3D.so links libusb (its RealSense camera support).
    {"libusb", {"libusb-1.0.so"}, "apt install libusb-1.0-0", kSystemLibrary},
    // A package that ships a TensorFlow op library beside its torch ops (Open3D's open3d_tf_ops.so,
    // loaded by open3d.ml.tf): only TensorFlow's users load it, with TensorFlow installed, which no
    // torch runtime needs; its torch side is judged by its own libraries.
    {"TensorFlow", {"libtensorflow_framework.so", "libtensorflow_cc.so"},
     "pip install tensorflow, where its TensorFlow side is wanted (torch's users never load it)",
     "a TensorFlow op library: only TensorFlow's users load it, beside TensorFlow, which a torch runtime has no "
     "reason to have"},
    // A library built for torch-npu (mindie-turbo 2.0rc1's extensions link libtorch_npu.so and
    // CANN): for another device, as an XPU build is; the row holds only where torch-npu's library is
    // lacked, and takes CANN's libraries from the row below then.
    {"torch-npu and Ascend's CANN", with_cann({"libtorch_npu.so"}),
     "pip install torch-npu (the release made for this torch) and install Ascend's CANN toolkit (source its "
     "set_env.sh), on a machine with an Ascend NPU",
     "a library for Ascend NPUs: it runs beside torch-npu, torch's Ascend build, and Ascend's CANN, which a CPU or "
     "CUDA build of torch has no reason to have",
     {"libtorch_npu.so"}},
    // torch-npu: Huawei's CANN toolkit, installed with an Ascend NPU's driver (its README's first step).
    {"Ascend CANN", kCannLibraries,
     "install Ascend's CANN toolkit and source its set_env.sh, on a machine with an Ascend NPU", kSystemLibrary},
    // Builds for Intel GPUs (XPU): vllm-xpu-kernels 0.1.16.2 links torch's XPU build
    // (libtorch_xpu.so, libc10_xpu.so: torch from PyTorch's XPU index) and oneAPI's SYCL runtime;
    // bigdl-core-xe-21 2.6.0 (ipex-llm's kernels) links the XPU build of Intel's extension for
    // PyTorch (libintel-ext-pt-gpu.so) and oneAPI's runtime. A CPU or CUDA torch has none of them
    // by design: such a library is for another device, judged beside that device's torch.
    {"Intel's extension for PyTorch (its XPU build)", {"libintel-ext-pt-gpu.so"},
     "pip install the XPU build of intel-extension-for-pytorch its package names (Intel's index), beside the torch "
     "it was built for, on a machine with an Intel GPU and its driver",
     "a library for Intel GPUs (XPU): it runs beside an XPU build of torch and Intel's extension for it, which a CPU "
     "or CUDA build of torch has no reason to have"},
    {"torch's XPU build and oneAPI",
     {"libtorch_xpu.so", "libc10_xpu.so", "libsycl.so", "libur_loader.so", "libze_loader.so", "libOpenCL.so",
      "libimf.so", "libsvml.so", "libirng.so", "libintlc.so", "libdnnl.so", "libmkl_sycl", "libpti_view.so"},
     "pip install torch --index-url https://download.pytorch.org/whl/xpu (torch's XPU build, which brings oneAPI's "
     "runtime), on a machine with an Intel GPU and its driver",
     "a library for Intel GPUs (XPU): it runs beside an XPU build of torch and Intel's oneAPI runtime, which a CPU "
     "or CUDA build of torch has no reason to have",
     {"libtorch_xpu.so", "libc10_xpu.so", "libsycl.so", "libur_loader.so", "libze_loader.so"}},
};

bool belongs(const SystemPrerequisite& p, const std::string& soname) {
  return std::any_of(p.soname_stems.begin(), p.soname_stems.end(),
                     [&](const char* stem) { return soname.rfind(stem, 0) == 0; });
}

}  // namespace

std::vector<PrerequisiteNeed> system_prerequisites_of(const std::vector<std::string>& absent) {
  std::vector<PrerequisiteNeed> needs;
  std::vector<std::string> claimed;  // by a marked row above: torch-npu's row takes CANN's libraries
  for (const auto& p : kPrerequisites) {
    PrerequisiteNeed need{&p, {}};
    for (const auto& s : absent)
      if (belongs(p, s) && std::find(claimed.begin(), claimed.end(), s) == claimed.end()) need.sonames.push_back(s);
    const bool marked = p.marks.empty() || std::any_of(need.sonames.begin(), need.sonames.end(), [&](const std::string& s) {
      return std::any_of(p.marks.begin(), p.marks.end(), [&](const char* m) { return s.rfind(m, 0) == 0; });
    });
    if (need.sonames.empty() || !marked) continue;
    if (!p.marks.empty()) claimed.insert(claimed.end(), need.sonames.begin(), need.sonames.end());
    needs.push_back(std::move(need));
  }
  std::size_t held = 0;
  for (const auto& n : needs) held += n.sonames.size();
  if (absent.empty() || held != absent.size()) return {};  // each soname belongs to one row at most
  return needs;
}

bool names_system_prerequisite(const std::string& text) {
  return std::any_of(std::begin(kPrerequisites), std::end(kPrerequisites),
                     [&](const SystemPrerequisite& p) { return text.find(p.name) != std::string::npos; });
}

}  // namespace opmatrix
