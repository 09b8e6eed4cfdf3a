// What a cold image build is doing, told from its output lines (podman build, docker build
// --progress=plain, make-base-image.sh): which step, what kind of work (base, packages, wheels,
// committing) and how many MB of how many, where apt or pip print them. A pure fold over lines,
// so it is tested on captured real output; run/log_ticker.h feeds it from the log.
#pragma once

#include <string>

namespace opmatrix {

struct ImageBuildProgress {
  std::string stage;        // "[5/5]" of a multi-stage podman build, "" otherwise
  std::string step;         // "14/24"
  std::string instruction;  // the step's instruction, shortened ("RUN pip-wheelhouse-install.sh …")
  std::string activity;     // base | packages | wheels | files | commands | committing | cached
  bool cached = false;      // podman/docker reused the step's layer
  // apt, within one step: "Need to get N MB" is the total, each "Get:" line's [size] a part of it
  double apt_total_bytes = 0;
  double apt_done_bytes = 0;
  int apt_unpacked = 0;
  int apt_set_up = 0;
  bool apt_fetched = false;  // "Fetched N MB": the downloads of this apt-get are done
  // pip, within one step: each "Downloading x.whl (N MB)" line starts one download
  int wheels = 0;
  double wheel_bytes = 0;
  std::string last_wheel;
  int wheels_reused = 0;     // "File was already downloaded" (the wheelhouse had it)
  bool pip_installing = false;
  std::string base_line;     // the last line of make-base-image.sh / mmdebstrap
  int lines = 0;
};

// Folds one output line (without its newline) into the state.
void feed_build_line(ImageBuildProgress& progress, const std::string& line);

// One line for a person: "step 14/24 (wheels: RUN pip-wheelhouse-install.sh …): 12 wheels,
// 1830 MB so far (last torch-2.12.1-….whl)". "" when no line came yet.
std::string describe_build_progress(const ImageBuildProgress& progress);

// "906.4 MB", "8808 B", "134 kB", "2.2 GB", "2641 MiB" -> bytes; 0 when it is not a size.
double parse_size(const std::string& number, const std::string& unit);

}  // namespace opmatrix
