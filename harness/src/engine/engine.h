// Where a cell's steps run: in a container (podman locally, docker on GitHub runners) or
// directly on a machine that already is the environment (`--engine host`).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "matrix/model.h"
#include "engine/process.h"

namespace opmatrix {

struct EngineConfig {
  std::string kind;       // podman | docker | host
  std::string repo_root;  // absolute; the matrix's folder, mounted read-only as /src
  // absolute; opmatrix's own Containerfiles and in-cell scripts (util/data_root.h). Its
  // scripts/cell is mounted read-only as /opmatrix/cell: the user's repository holds none.
  std::string data_root;
  std::string work_dir;   // absolute; per-cell build folders and the shared ccache live here
  std::string pip_cache;  // absolute; shared by every image build ("" = none)
  std::string extra_ca;   // CA bundle handed to image builds for HTTPS ("" = none)
  bool local_base_images = true;  // podman: base images from mmdebstrap, not a registry
  std::string memory = "12g";
  // The user the steps run as inside containers ("" = the image's own, root). Its build and
  // ccache folders are handed to it first.
  std::string user = "65534:65534";
  int pids_limit = 8192;
};

// Paths as the commands inside the cell see them.
struct CellPaths {
  std::string src, build, ccache;
  std::string scripts;    // the in-cell scripts (scripts/cell)
  std::string downloads;  // projects fetched from PyPI (read-only but in the fetch step)
};

struct StepCommand {
  std::string cell_id;
  std::string step;
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::string log_path;
  bool capture_stdout = false;
  double timeout_s = 0;
  // Extra host folders the step reads (host path, path inside the container), mounted
  // read-only; the host engine sees the host paths themselves.
  std::vector<std::pair<std::string, std::string>> read_only_mounts;
  // The one kind of step that reaches the network (downloading a project from PyPI); every
  // other step runs with --network=none.
  bool network = false;
};

struct ImageOutcome {
  bool ok = false;
  bool built = false;  // false: it was already there
  std::string tag;
  std::string error;   // plain words when !ok
  double seconds = 0;
  ProcessResult process;
  // Set by images/image_prefetch.h's SharedBuildEngine when this call did not acquire the image
  // itself: "the look-ahead" (it acquired this cell's image ahead of the cell) or the id of
  // the cell whose build of the same tag this call waited for. `seconds` stays the build's own
  // time; `waited_seconds` is how long the caller really stood still for it.
  std::string acquired_by;
  double waited_seconds = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  // Why this engine cannot run here (missing binary…), or nullopt.
  virtual std::optional<std::string> unavailable_reason() = 0;
  virtual ImageOutcome ensure_image(const Cell& cell, const std::string& log_path, double timeout_s) = 0;
  // The image the cell would run in, without building anything: its content-hash tag (or
  // the ref), "host" for the host engine, "" when that cannot be known yet (base missing).
  virtual std::string planned_image(const Cell& cell) = 0;
  // The engine's id of an image tag (hex), "" when there is none (the host engine).
  virtual std::string image_id(const std::string& tag) { (void)tag; return ""; }
  // The size an image takes in the engine's storage (bytes, as `podman images` counts it),
  // nullopt when there is no such image or no storage (the host engine).
  virtual std::optional<double> image_size(const std::string& tag) { (void)tag; return std::nullopt; }
  // Removes an image from the engine's storage (`podman rmi TAG`); false where it could not (in
  // use, absent, no storage). Only for images opmatrix built itself (the atlas's --disk-budget).
  virtual bool remove_image(const std::string& tag) { (void)tag; return false; }
  // Removes the untagged images made since then that no container uses (the stages of the
  // multi-stage builds of that time: engine/build_leftovers.h); how many went.
  virtual int remove_unused_images_since(std::int64_t since_epoch_s) { (void)since_epoch_s; return 0; }
  // The folder the engine keeps its images in (podman's graphroot, docker's root dir), "" unknown.
  virtual std::string storage_root() { return ""; }
  virtual CellPaths paths(const Cell& cell) const = 0;
  virtual ProcessResult run_step(const std::string& image, const Cell& cell, const StepCommand& cmd) = 0;
  // The command a person types to run `cmd` by hand (for reproduction lines).
  virtual std::string display(const std::string& image, const Cell& cell, const StepCommand& cmd) const = 0;

  // Host folders a cell uses (created by the runner).
  // Per engine: a build tree configured in a container (/src, /build) cannot be reused on the host.
  std::string host_build_dir(const Cell& cell) const {
    return config_.work_dir + "/cells/" + cell.id + "/" + config_.kind + "-build";
  }
  std::string host_ccache_dir() const { return config_.work_dir + "/ccache"; }
  // Shared by every cell: a release is downloaded once per run folder.
  std::string host_downloads_dir() const { return config_.work_dir + "/downloads"; }
  const EngineConfig& config() const { return config_; }

 protected:
  explicit Engine(EngineConfig config) : config_(std::move(config)) {}
  EngineConfig config_;
};

std::unique_ptr<Engine> make_engine(const EngineConfig& config);

// The fatal signal (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGKILL) behind a container's
// exit status 128 + N, or 0. SIGTERM/SIGINT (143/130) are left alone: programs exit so on purpose.
int signal_of_exit_status(int exit_code);

// The image tag for a cell: a content hash of its Containerfile, build args, base image and
// build context, so an image is rebuilt exactly when something that goes into it changed.
std::string image_tag_for(const Cell& cell, const EngineConfig& config, const std::string& base_id);

// The Containerfile a cell's image is built from (absolute): a built-in recipe from the data
// root, or the user's own from the matrix's folder.
std::string containerfile_path(const Cell& cell, const EngineConfig& config);

// The files of the build context `context` that a Containerfile's COPY/ADD lines take in
// (sorted, absolute); every file of the context when a source has a wildcard or is unknown.
std::vector<std::string> copied_context_files(const std::string& containerfile_text,
                                              const std::filesystem::path& context);

}  // namespace opmatrix
