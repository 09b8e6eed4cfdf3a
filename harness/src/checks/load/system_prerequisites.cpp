#include "checks/load/system_prerequisites.h"

#include <algorithm>

namespace opmatrix {

namespace {

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
    // Open3D 0.20's libOpen3D.so links libusb (its RealSense camera support).
    {"libusb", {"libusb-1.0.so"}, "apt install libusb-1.0-0", kSystemLibrary},
    // A package that ships a TensorFlow op library beside its torch ops (Open3D's open3d_tf_ops.so,
    // loaded by open3d.ml.tf): only TensorFlow's users load it, with TensorFlow installed, which no
    // torch runtime needs; its torch side is judged by its own libraries.
    {"TensorFlow", {"libtensorflow_framework.so", "libtensorflow_cc.so"},
     "pip install tensorflow, where its TensorFlow side is wanted (torch's users never load it)",
     "a TensorFlow op library: only TensorFlow's users load it, beside TensorFlow, which a torch runtime has no "
     "reason to have"},
    // torch-npu: Huawei's CANN toolkit, installed with an Ascend NPU's driver (its README's first step).
    {"Ascend CANN",
     {"libascendcl.so", "libhccl.so", "libge_runner.so", "libgraph.so", "libacl_op_compiler.so",
      "libacl_tdt_channel.so", "libfmk_parser.so", "libascend_protobuf.so", "libatb.so"},
     "install Ascend's CANN toolkit and source its set_env.sh, on a machine with an Ascend NPU", kSystemLibrary},
};

bool belongs(const SystemPrerequisite& p, const std::string& soname) {
  return std::any_of(p.soname_stems.begin(), p.soname_stems.end(),
                     [&](const char* stem) { return soname.rfind(stem, 0) == 0; });
}

}  // namespace

std::vector<PrerequisiteNeed> system_prerequisites_of(const std::vector<std::string>& absent) {
  std::vector<PrerequisiteNeed> needs;
  for (const auto& p : kPrerequisites) {
    PrerequisiteNeed need{&p, {}};
    for (const auto& s : absent)
      if (belongs(p, s)) need.sonames.push_back(s);
    if (!need.sonames.empty()) needs.push_back(std::move(need));
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
