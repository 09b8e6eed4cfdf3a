// System libraries that op libraries tell their users to install themselves (not Python
// packages, so pip brings none): torchcodec's README asks for FFmpeg 4-8 and loads the build of
// its core that fits the FFmpeg it finds. In a runtime without one, its libraries cannot load
// whatever the torch: what the loader lacks is the user's install, not a break of the library
// with this torch. Version knowledge in a table, one row per prerequisite.
#pragma once

#include <string>
#include <vector>

namespace opmatrix {

struct SystemPrerequisite {
  const char* name;                        // "FFmpeg"
  std::vector<const char*> soname_stems;   // "libavutil.so": each of its libraries, any version
  const char* install;                     // how a Debian user installs it
  // Why a runtime without it says nothing of the library with this torch (the end of the sentence
  // "it needs X's libraries (...), ..."); kSystemLibrary for what its users install themselves.
  const char* why;
  // Where not empty, the row holds only where one of these is among the absent: libraries that
  // other software links too (Intel's compiler runtime, libimf.so, beside an XPU build's
  // libsycl.so) say nothing of the device by themselves.
  std::vector<const char*> marks = {};
};

inline constexpr const char* kSystemLibrary =
    "a system library its users install themselves (pip brings none), and this runtime has not that version of it";

// The prerequisites that together hold every one of `absent` (sonames the loader could not
// find), each with the sonames of it, in the table's order; empty where one of `absent` is no
// known prerequisite's (a torch or CUDA library stays red). Open3D's
// libOpen3D.so lacks libEGL.so.1, libGL.so.1 (OpenGL) and libusb-1.0.so.0 (libusb) at once.
struct PrerequisiteNeed {
  const SystemPrerequisite* prerequisite;
  std::vector<std::string> sonames;
};
std::vector<PrerequisiteNeed> system_prerequisites_of(const std::vector<std::string>& absent);

// Whether `text` (an import's error) names a prerequisite ("FFmpeg is not properly installed").
bool names_system_prerequisite(const std::string& text);

}  // namespace opmatrix
