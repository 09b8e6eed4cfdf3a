#include "engine/container_engines.h"

#include <fmt/format.h>

#include "engine/process.h"

namespace opmatrix {

const std::vector<ContainerEngineInfo>& container_engines() {
  static const std::vector<ContainerEngineInfo> engines = {
      {"podman", "`sudo apt-get install podman` (Debian, Ubuntu) or `sudo dnf install podman` (Fedora, RHEL)"},
      {"docker", "Docker Engine, as docs.docker.com/engine/install says for your distribution"},
  };
  return engines;
}

std::string container_engine_fix(const std::string& kind) {
  for (const auto& e : container_engines())
    if (e.kind == kind)
      return fmt::format("install {}: {}", kind, e.install);
  return "";
}

std::string base_image_tool_fix() {
  return fmt::format("{0} is not installed: `sudo apt-get install {0}` (Debian, Ubuntu); podman's Debian base "
                     "images are made with it",
                     kBaseImageTool);
}

std::string program_version(const std::string& program) {
  ProcessSpec spec;
  spec.argv = {program, "--version"};
  spec.capture_stdout = true;
  spec.timeout_s = 30;
  const ProcessResult r = run_process(spec);
  if (!r.ok()) return "";
  const std::string first = r.stdout_text.substr(0, r.stdout_text.find('\n'));
  return first.empty() ? program : first;
}

}  // namespace opmatrix
