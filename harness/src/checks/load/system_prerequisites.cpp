#include "checks/load/system_prerequisites.h"

#include <algorithm>

namespace opmatrix {

namespace {

const SystemPrerequisite kPrerequisites[] = {
    {"FFmpeg",
     {"libavutil.so", "libavcodec.so", "libavformat.so", "libavdevice.so", "libavfilter.so", "libswscale.so",
      "libswresample.so", "libpostproc.so"},
     "apt install ffmpeg (FFmpeg 4 to 8, as the library's README says)"},
    // torchaudio 2.1 on loads libsox at run time for its SoX backend and asks users to install it.
    {"SoX", {"libsox.so"}, "apt install libsox-dev (its libsox.so; the library's SoX backend loads it)"},
    // fairseq2n: "fairseq2 depends on libsndfile … sudo apt install libsndfile1" (its install guide).
    {"libsndfile", {"libsndfile.so"}, "apt install libsndfile1"},
    // torch-npu: Huawei's CANN toolkit, installed with an Ascend NPU's driver (its README's first step).
    {"Ascend CANN",
     {"libascendcl.so", "libhccl.so", "libge_runner.so", "libgraph.so", "libacl_op_compiler.so",
      "libacl_tdt_channel.so", "libfmk_parser.so", "libascend_protobuf.so", "libatb.so"},
     "install Ascend's CANN toolkit and source its set_env.sh, on a machine with an Ascend NPU"},
};

bool belongs(const SystemPrerequisite& p, const std::string& soname) {
  return std::any_of(p.soname_stems.begin(), p.soname_stems.end(),
                     [&](const char* stem) { return soname.rfind(stem, 0) == 0; });
}

}  // namespace

const SystemPrerequisite* system_prerequisite_of(const std::vector<std::string>& absent) {
  if (absent.empty()) return nullptr;
  for (const auto& p : kPrerequisites)
    if (std::all_of(absent.begin(), absent.end(), [&](const std::string& s) { return belongs(p, s); })) return &p;
  return nullptr;
}

bool names_system_prerequisite(const std::string& text) {
  return std::any_of(std::begin(kPrerequisites), std::end(kPrerequisites),
                     [&](const SystemPrerequisite& p) { return text.find(p.name) != std::string::npos; });
}

}  // namespace opmatrix
