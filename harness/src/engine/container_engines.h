// The container engines `opmatrix run` can use, and what a user without one types to get it:
// read by the run's first check (Engine::unavailable_reason) and by `opmatrix doctor`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/process.h"

namespace opmatrix {

struct ContainerEngineInfo {
  std::string kind;     // podman | docker: the program and --engine word
  std::string install;  // how to get it, in one line
};

// podman first: the local default engine.
const std::vector<ContainerEngineInfo>& container_engines();

// The line that tells a user how to get `kind`, "" for an unknown kind.
std::string container_engine_fix(const std::string& kind);

// What podman needs besides itself here: its Debian base images are made with mmdebstrap
// (scripts/make-base-image.sh), not pulled from a registry.
constexpr const char* kBaseImageTool = "mmdebstrap";
// The tag of the base image it makes for a Debian suite: this prefix + the suite.
constexpr const char* kBaseImagePrefix = "localhost/opmatrix-base:";

// "mmdebstrap is not installed: ..." with the command that installs it.
std::string base_image_tool_fix();

// `PROGRAM --version`, its stdout captured, 30 s at most; `env` added to ours.
ProcessResult run_version(const std::string& program, const std::vector<std::pair<std::string, std::string>>& env = {});

// `PROGRAM --version`'s first line, or "" where it is not installed or does not answer.
std::string program_version(const std::string& program);

}  // namespace opmatrix
