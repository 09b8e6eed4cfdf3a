#include "engine/container_engines.h"

#include <fmt/format.h>

#include "engine/process.h"

namespace opmatrix {

const std::vector<ContainerEngineInfo>& container_engines() {
  static const std::vector<ContainerEngineInfo> engines = {
      {"podman", "`sudo apt-get install podman` (Debian, Ubuntu) or `sudo dnf install podman` (Fedora, RHEL)"},
      {"docker", "Docker Engine (docs.docker.com/engine/install), then `--engine docker`"},
  };
  return engines;
}

std::string container_engine_fix(const std::string& kind) {
  for (const auto& e : container_engines())
    if (e.kind == kind)
      return fmt::format("install {}: {}; or run with another engine (--engine podman | docker), or `--engine host` "
                         "for this machine's own torch",
                         kind, e.install);
  return "";
}

std::string container_engine_version(const std::string& kind) {
  ProcessSpec spec;
  spec.argv = {kind, "--version"};
  spec.capture_stdout = true;
  spec.timeout_s = 30;
  const ProcessResult r = run_process(spec);
  if (!r.ok()) return "";
  const std::string first = r.stdout_text.substr(0, r.stdout_text.find('\n'));
  return first.empty() ? kind : first;
}

}  // namespace opmatrix
