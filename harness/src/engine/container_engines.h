// The container engines `opmatrix run` can use, and what a user without one types to get it:
// read by the run's first check (Engine::unavailable_reason) and by `opmatrix doctor`.
#pragma once

#include <string>
#include <vector>

namespace opmatrix {

struct ContainerEngineInfo {
  std::string kind;     // podman | docker: the program and --engine word
  std::string install;  // how to get it, in one line
};

// podman first: the local default engine.
const std::vector<ContainerEngineInfo>& container_engines();

// The line that tells a user how to get `kind` (or another engine), "" for an unknown kind.
std::string container_engine_fix(const std::string& kind);

// `KIND --version`'s first line, or "" where it is not installed or does not answer.
std::string container_engine_version(const std::string& kind);

}  // namespace opmatrix
