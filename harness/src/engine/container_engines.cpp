#include "engine/container_engines.h"

#include <fmt/format.h>

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

ProcessResult run_version(const std::string& program, const std::vector<std::pair<std::string, std::string>>& env) {
  ProcessSpec spec;
  spec.argv = {program, "--version"};
  spec.env = env;
  spec.capture_stdout = true;
  spec.timeout_s = 30;
  return run_process(spec);
}

std::string program_version(const std::string& program) {
  const ProcessResult r = run_version(program);
  if (!r.ok()) return "";
  const std::string first = r.stdout_text.substr(0, r.stdout_text.find('\n'));
  return first.empty() ? program : first;
}

}  // namespace opmatrix
