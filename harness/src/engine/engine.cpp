#include "engine/engine.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <csignal>
#include <cctype>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

#include <fmt/format.h>

#include "engine/build_leftovers.h"
#include "engine/container_engines.h"
#include "util/atomic_write.h"
#include "util/hash.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// Image builds read only this folder of the data root (the Containerfiles' build context).
constexpr const char* kBuildContext = "scripts/cell";
constexpr const char* kScriptsInCell = "/opmatrix/cell";

std::string arg_value(const Cell& cell, const std::string& key, const std::string& fallback) {
  for (const auto& [k, v] : cell.image.args)
    if (k == key) return v;
  return fallback;
}

std::string stem_of(const std::string& containerfile) {
  std::string stem = fs::path(containerfile).filename().string();
  const auto dot = stem.find('.');
  if (dot != std::string::npos) stem = stem.substr(0, dot);
  std::transform(stem.begin(), stem.end(), stem.begin(), [](unsigned char c) { return std::tolower(c); });
  return stem;
}

class ContainerEngine : public Engine {
 public:
  explicit ContainerEngine(EngineConfig config) : Engine(std::move(config)) {}

  std::string name() const override { return config_.kind; }

  std::optional<std::string> unavailable_reason() override {
    const ProcessResult r = run_version(config_.kind, env());
    if (!r.started)
      return fmt::format("the container engine '{}' is not installed ({}): {}", config_.kind, r.start_error,
                         container_engine_fix(config_.kind));
    if (!r.ok())
      return fmt::format("'{} --version' failed (exit {}); is the engine configured? (podman: see "
                         "containers/podman/containers.conf)", config_.kind, r.exit_code);
    return std::nullopt;
  }

  CellPaths paths(const Cell&) const override { return {"/src", "/build", "/ccache", kScriptsInCell, "/downloads"}; }

  std::string planned_image(const Cell& cell) override {
    if (!cell.image.ref.empty()) return cell.image.ref;
    const std::string suite = arg_value(cell, "SUITE", "bookworm");
    std::string base_id = "registry:debian:" + suite;
    if (config_.kind == "podman" && config_.local_base_images) {
      std::vector<std::string> ids = {image_id(kBaseImagePrefix + suite)};
      for (const auto& [k, v] : cell.image.args)
        if (v.rfind("debian:", 0) == 0) ids.push_back(image_id(kBaseImagePrefix + v.substr(7)));
      for (const auto& id : ids)
        if (id.empty()) return "";
      base_id = fmt::format("{}", fmt::join(ids, ","));
    }
    return image_tag_for(cell, config_, base_id);
  }

  ImageOutcome ensure_image(const Cell& cell, const std::string& log_path, double timeout_s) override {
    ImageOutcome out;
    if (!cell.image.ref.empty()) {
      out.tag = cell.image.ref;
      if (image_exists(out.tag)) {
        out.ok = true;
        return out;
      }
      out.process = run({config_.kind, "pull", out.tag}, log_path, timeout_s);
      out.ok = out.process.ok();
      out.built = out.ok;
      out.seconds = out.process.seconds;
      if (!out.ok) out.error = fmt::format("could not pull image {} (see the log)", out.tag);
      return out;
    }
    // Locally, every `debian:SUITE` the build needs (BASE, and any build arg naming such an
    // image, e.g. NVCC_BASE) is replaced by the mmdebstrap-made localhost/opmatrix-base:SUITE.
    std::vector<std::pair<std::string, std::string>> args = cell.image.args;
    const std::string suite = arg_value(cell, "SUITE", "bookworm");
    std::string base_id = "registry:debian:" + suite;
    if (config_.kind == "podman" && config_.local_base_images) {
      args.insert(args.begin(), {"BASE", "debian:" + suite});  // same order as planned_image()
      std::vector<std::string> ids;
      for (auto& [k, v] : args) {
        if (v.rfind("debian:", 0) != 0) continue;
        const std::string base_suite = v.substr(7);
        const std::string base = kBaseImagePrefix + base_suite;
        if (!image_exists(base)) {
          if (program_version(kBaseImageTool).empty()) {
            out.error = fmt::format("cannot make the base image {}: {}", base, base_image_tool_fix());
            return out;
          }
          ProcessResult made = run({config_.data_root + "/scripts/make-base-image.sh", base_suite}, log_path, timeout_s);
          if (!made.ok()) {
            out.process = made;
            out.error = fmt::format("could not make the base image {} with mmdebstrap (see the log)", base);
            return out;
          }
        }
        ids.push_back(image_id(base));
        v = base;
      }
      base_id = fmt::format("{}", fmt::join(ids, ","));
    }
    out.tag = image_tag_for(cell, config_, base_id);
    if (image_exists(out.tag)) {
      out.ok = true;
      return out;
    }
    std::vector<std::string> argv = {config_.kind, "build", "-f", containerfile_path(cell, config_),
                                     "-t", out.tag};
    for (const auto& [k, v] : args) {
      argv.push_back("--build-arg");
      argv.push_back(k + "=" + v);
    }
    // `podman build -v` shares the pip cache and CA bundle; `docker build` has no volumes
    // (GitHub runners need neither: PyPI is reached directly).
    if (config_.kind == "podman" && !config_.pip_cache.empty()) {
      fs::create_directories(config_.pip_cache);
      argv.push_back("-v");
      argv.push_back(config_.pip_cache + ":/root/.cache/pip");
    }
    if (config_.kind == "podman" && !config_.extra_ca.empty()) {
      argv.push_back("-v");
      argv.push_back(config_.extra_ca + ":/run/opmatrix-ca.crt:ro");
      argv.push_back("--build-arg");
      argv.push_back("PIP_CERT=/run/opmatrix-ca.crt");
    }
    argv.push_back(config_.data_root + "/" + kBuildContext);
    const std::int64_t started = build_started();
    out.process = run(argv, log_path, timeout_s);
    build_ended(out.process.ok() ? std::nullopt : std::optional<std::int64_t>(started), log_path);
    out.seconds = out.process.seconds;
    out.built = true;
    out.ok = out.process.ok();
    if (!out.ok)
      out.error = out.process.timed_out ? "the image build ran past its time limit"
                                        : fmt::format("the image build failed (exit {}; see the log)", out.process.exit_code);
    return out;
  }

  ProcessResult run_step(const std::string& image, const Cell& cell, const StepCommand& cmd) override {
    const std::string name = container_name(cmd);
    std::error_code ec;
    fs::create_directories(host_downloads_dir(), ec);  // mounted in every step: it must exist
    hand_volumes_to_user(cell, cmd);
    ProcessSpec spec;
    spec.argv = run_argv(image, cell, cmd, name);
    spec.env = env();
    spec.log_path = cmd.log_path;
    spec.capture_stdout = cmd.capture_stdout;
    spec.timeout_s = cmd.timeout_s;
    // At the limit, what the container still runs (a compiler at work, or nothing: a hang).
    spec.on_timeout = config_.kind == "podman" ? std::vector<std::string>{config_.kind, "top", name, "comm"}
                                               : std::vector<std::string>{config_.kind, "top", name, "-o", "comm"};
    // A killed `podman run` client can leave its container running: remove it by name.
    ProcessResult r = run_process(spec, {config_.kind, "rm", "-f", "-t", "0", name});
    // podman/docker run report a container whose process died of signal N as exit status
    // 128 + N (their own failures are 125-127): that is a crash, not a failed check.
    if (r.started && r.signal == 0 && !r.timed_out && !r.interrupted) r.signal = signal_of_exit_status(r.exit_code);
    return r;
  }

  std::string display(const std::string& image, const Cell& cell, const StepCommand& cmd) const override {
    std::vector<std::string> argv = run_argv(image, cell, cmd, "");
    for (auto& a : argv) {
      if (a.rfind(config_.repo_root, 0) == 0) a = "$PWD" + a.substr(config_.repo_root.size());
    }
    return shell_quote_for_display(argv);
  }

 private:
  std::vector<std::pair<std::string, std::string>> env() const {
    if (config_.kind != "podman") return {};
    return {{"CONTAINERS_CONF", config_.data_root + "/containers/podman/containers.conf"}};
  }

  std::string container_name(const StepCommand& cmd) const {
    return fmt::format("opmatrix-{}-{}-{}", cmd.cell_id, cmd.step, ::getpid());
  }

  std::vector<std::string> run_argv(const std::string& image, const Cell& cell, const StepCommand& cmd,
                                    const std::string& name) const {
    std::vector<std::string> argv = {config_.kind, "run", "--rm"};
    if (!name.empty()) argv.insert(argv.end(), {"--name", name});
    if (!cmd.network) argv.push_back("--network=none");
    argv.insert(argv.end(), {"--memory=" + config_.memory,
                             "--pids-limit=" + std::to_string(config_.pids_limit),
                             "--security-opt=no-new-privileges",
                             "-v", config_.repo_root + ":/src:ro",
                             "-v", host_build_dir(cell) + ":/build",
                             "-v", host_ccache_dir() + ":/ccache",
                             "-v", config_.data_root + "/" + kBuildContext + ":" + kScriptsInCell + ":ro",
                             "-v", host_downloads_dir() + ":/downloads" + (cmd.network ? "" : ":ro"),
                             "-w", "/build"});
    for (const auto& [host, inside] : cmd.read_only_mounts) argv.insert(argv.end(), {"-v", host + ":" + inside + ":ro"});
    // The networked step reaches PyPI through the same CA bundle as image builds.
    if (cmd.network && !config_.extra_ca.empty())
      argv.insert(argv.end(), {"-v", config_.extra_ca + ":/run/opmatrix-ca.crt:ro", "-e", "SSL_CERT_FILE=/run/opmatrix-ca.crt"});
    // ccache keeps its temporary files (the compiler's captured stderr among them) next to
    // the cache by default: with the build volume full, a failed compile then says nothing.
    // The container's own /tmp keeps "No space left on device" in the log.
    argv.insert(argv.end(), {"-e", "CCACHE_TEMPDIR=/tmp"});
    // Not root inside: a step can then write only /build, /ccache and /tmp. HOME for tools
    // that keep caches there (torch, pip, cmake's package registry).
    if (!config_.user.empty()) argv.insert(argv.end(), {"--user", config_.user, "-e", "HOME=/tmp"});
    for (const auto& [k, v] : cmd.env) argv.insert(argv.end(), {"-e", k + "=" + v});
    argv.push_back(image);
    argv.insert(argv.end(), cmd.argv.begin(), cmd.argv.end());
    return argv;
  }

  // The build and ccache folders belong to the step's user: the harness (root on the host)
  // creates folders and stamps in them between steps.
  void hand_volumes_to_user(const Cell& cell, const StepCommand& cmd) {
    if (config_.user.empty() || ::geteuid() != 0) return;  // only root can give folders away
    unsigned uid = 0, gid = 0;
    if (std::sscanf(config_.user.c_str(), "%u:%u", &uid, &gid) != 2) return;
    auto own = [&](const std::string& dir) {
      std::error_code ec;
      ::lchown(dir.c_str(), uid, gid);
      for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        struct stat st;
        if (::lstat(it->path().c_str(), &st) == 0 && (st.st_uid != uid || st.st_gid != gid))
          ::lchown(it->path().c_str(), uid, gid);
      }
    };
    own(host_build_dir(cell));
    if (cmd.network) own(host_downloads_dir());
    std::call_once(ccache_owned_, [&] { own(host_ccache_dir()); });  // later entries are the user's own
  }
  std::once_flag ccache_owned_;

  ProcessResult run(const std::vector<std::string>& argv, const std::string& log_path, double timeout_s) {
    ProcessSpec spec;
    spec.argv = argv;
    spec.env = env();
    spec.log_path = log_path;
    spec.timeout_s = timeout_s;
    return run_process(spec);
  }

  bool image_exists(const std::string& tag) {
    ProcessSpec spec;
    spec.argv = {config_.kind, "image", "inspect", "--format", "{{.Id}}", tag};
    spec.env = env();
    spec.capture_stdout = true;
    spec.timeout_s = 60;
    return run_process(spec).ok();
  }

  std::string image_id(const std::string& tag) override {
    std::lock_guard<std::mutex> lock(base_ids_mutex_);
    auto known = base_ids_.find(tag);
    if (known != base_ids_.end()) return known->second;
    ProcessSpec spec;
    spec.argv = {config_.kind, "image", "inspect", "--format", "{{.Id}}", tag};
    spec.env = env();
    spec.capture_stdout = true;
    spec.timeout_s = 60;
    ProcessResult r = run_process(spec);
    std::string id = r.ok() ? r.stdout_text : std::string();
    id.erase(std::remove(id.begin(), id.end(), '\n'), id.end());
    if (!id.empty()) base_ids_[tag] = id;
    return id;
  }

  bool remove_image(const std::string& tag) override {
    {
      std::lock_guard<std::mutex> lock(base_ids_mutex_);
      base_ids_.erase(tag);
    }
    ProcessSpec spec;
    spec.argv = {config_.kind, "rmi", tag};
    spec.env = env();
    spec.capture_stdout = true;
    spec.timeout_s = 600;  // a 7 GB image's layers
    return run_process(spec).ok();
  }

  int remove_unused_images_since(std::int64_t since) override {
    if (config_.kind != "podman") return 0;
    std::vector<std::string> ids;
    try {
      ids = unused_images_since(
          inspect({config_.kind, "images", "-a", "--filter", "dangling=true", "--format", "json"}).stdout_text, since);
    } catch (const std::exception&) {
      return 0;
    }
    int removed = 0;
    for (const auto& id : ids) {  // one at a time: a stage another image still stands on stays
      ProcessSpec spec;
      spec.argv = {config_.kind, "rmi", id};
      spec.env = env();
      spec.capture_stdout = true;
      spec.timeout_s = 600;
      removed += run_process(spec).ok() ? 1 : 0;
    }
    return removed;
  }

  std::optional<double> image_size(const std::string& tag) override {
    ProcessResult r = inspect({config_.kind, "image", "inspect", "--format", "{{.Size}}", tag});
    try {
      if (r.ok()) return std::stod(r.stdout_text);
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }

  std::string storage_root() override {
    // podman: the graphroot of its storage.conf (or the rootless default); docker: its data root.
    ProcessResult r = inspect({config_.kind, "info", "--format",
                               config_.kind == "podman" ? "{{.Store.GraphRoot}}" : "{{.DockerRootDir}}"});
    std::string root = r.ok() ? r.stdout_text : std::string();
    root.erase(std::remove(root.begin(), root.end(), '\n'), root.end());
    return root;
  }

  ProcessResult inspect(const std::vector<std::string>& argv) {
    ProcessSpec spec;
    spec.argv = argv;
    spec.env = env();
    spec.capture_stdout = true;
    spec.timeout_s = 60;
    return run_process(spec);
  }

  // podman leaves an interrupted build's working containers, which pin its intermediate images
  // (engine/build_leftovers.h). Once no build of this run is in flight, those created since the
  // first failed build began are that build's (or a later failed one's): none of this run's can be
  // live. Another opmatrix (or podman build) on the same storage building at that very moment would
  // lose its working container and fail: one that is told apart by nothing podman records.
  std::int64_t build_started() {
    std::lock_guard<std::mutex> lock(builds_mutex_);  // waits for a removal under way
    ++builds_in_flight_;
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  void build_ended(std::optional<std::int64_t> failed_since, const std::string& log_path) {
    std::lock_guard<std::mutex> lock(builds_mutex_);
    --builds_in_flight_;
    if (failed_since && (!leftovers_since_ || *failed_since < *leftovers_since_)) leftovers_since_ = failed_since;
    if (builds_in_flight_ > 0 || !leftovers_since_ || config_.kind != "podman") return;
    remove_build_leftovers(*leftovers_since_, log_path);
    leftovers_since_.reset();
  }

  // Runs after a stop too (a Ctrl-C is how most builds get interrupted): ignore_stop.
  void remove_build_leftovers(std::int64_t since, const std::string& log_path) {
    auto cleanup = [&](std::vector<std::string> argv, bool capture) {
      ProcessSpec spec;
      spec.argv = std::move(argv);
      spec.env = env();
      spec.log_path = log_path;
      spec.capture_stdout = capture;
      spec.timeout_s = 120;
      spec.ignore_stop = true;
      return run_process(spec);
    };
    std::vector<BuildLeftover> left;
    try {
      left = build_leftovers(cleanup({config_.kind, "ps", "-a", "--external", "--format", "json"}, true).stdout_text,
                             since);
    } catch (const std::exception&) {
      return;  // an older podman without --external: nothing to find
    }
    if (left.empty()) return;
    std::vector<std::string> rm = {config_.kind, "rm", "-f"};
    for (const auto& l : left) rm.push_back(l.container_id);
    cleanup(rm, false);
    // The images they stood on, where nothing else names them (a tagged base stays): removing
    // one removes its untagged parents, the rest of that build's layers.
    const std::string dangling =
        cleanup({config_.kind, "images", "-a", "-q", "--no-trunc", "--filter", "dangling=true"}, true).stdout_text;
    std::vector<std::string> rmi = {config_.kind, "rmi"};
    for (const auto& l : left)
      if (!l.image_id.empty() && dangling.find(l.image_id) != std::string::npos &&
          std::find(rmi.begin(), rmi.end(), l.image_id) == rmi.end())
        rmi.push_back(l.image_id);
    if (rmi.size() > 2) cleanup(rmi, false);
  }
  std::mutex builds_mutex_;
  int builds_in_flight_ = 0;
  std::optional<std::int64_t> leftovers_since_;

  // Image ids asked for during this run (base images: a handful, asked for by every cell).
  std::mutex base_ids_mutex_;
  std::map<std::string, std::string> base_ids_;
};

// The machine is the environment: steps run as plain processes, paths are real.
class HostEngine : public Engine {
 public:
  explicit HostEngine(EngineConfig config) : Engine(std::move(config)) {}
  std::string name() const override { return "host"; }
  std::optional<std::string> unavailable_reason() override { return std::nullopt; }

  ImageOutcome ensure_image(const Cell&, const std::string&, double) override {
    ImageOutcome out;
    out.ok = true;
    out.tag = "host";
    return out;
  }

  // The machine itself can change under us (apt, pip): never reuse a host result.
  std::string planned_image(const Cell&) override { return ""; }

  CellPaths paths(const Cell& cell) const override {
    return {config_.repo_root, host_build_dir(cell), host_ccache_dir(), config_.data_root + "/" + kBuildContext,
            host_downloads_dir()};
  }

  ProcessResult run_step(const std::string&, const Cell&, const StepCommand& cmd) override {
    ProcessSpec spec;
    spec.argv = cmd.argv;
    spec.env = cmd.env;
    spec.log_path = cmd.log_path;
    spec.capture_stdout = cmd.capture_stdout;
    spec.timeout_s = cmd.timeout_s;
    return run_process(spec);
  }

  std::string display(const std::string&, const Cell&, const StepCommand& cmd) const override {
    std::vector<std::string> argv;
    for (const auto& [k, v] : cmd.env) argv.push_back(k + "=" + v);
    argv.insert(argv.end(), cmd.argv.begin(), cmd.argv.end());
    for (auto& a : argv) {
      const auto at = a.find(config_.repo_root);
      if (at != std::string::npos) a = a.substr(0, at) + "$PWD" + a.substr(at + config_.repo_root.size());
    }
    return (cmd.env.empty() ? "" : "env ") + shell_quote_for_display(argv);
  }
};

}  // namespace

int signal_of_exit_status(int exit_code) {
  switch (exit_code - 128) {
    case SIGILL: case SIGABRT: case SIGBUS: case SIGFPE: case SIGKILL: case SIGSEGV: return exit_code - 128;
    default: return 0;
  }
}

std::unique_ptr<Engine> make_engine(const EngineConfig& config) {
  if (config.kind == "host") return std::make_unique<HostEngine>(config);
  return std::make_unique<ContainerEngine>(config);
}

// The build-context files a Containerfile copies in (COPY/ADD without --from), so that a
// change to a script the image never sees (probe.py…) does not rebuild every image. A source
// with a wildcard, or one we cannot find, falls back to the whole context: never too little.
std::vector<std::string> copied_context_files(const std::string& containerfile_text, const fs::path& context) {
  std::vector<std::string> files;
  std::string text = containerfile_text;
  for (std::size_t at = 0; (at = text.find("\\\n", at)) != std::string::npos;) text.replace(at, 2, " ");
  std::istringstream lines(text);
  bool whole = false;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string word;
    words >> word;
    for (auto& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (word != "COPY" && word != "ADD") continue;
    std::vector<std::string> parts;
    bool from_stage = false;
    while (words >> word) {
      if (word.rfind("--from", 0) == 0) from_stage = true;
      if (word.rfind("--", 0) == 0) continue;
      parts.push_back(word);
    }
    if (from_stage || parts.size() < 2) continue;
    parts.pop_back();  // the destination
    for (const auto& src : parts) {
      const fs::path p = context / src;
      std::error_code ec;
      if (src.find_first_of("*?[$") != std::string::npos || src.find("..") != std::string::npos || !fs::exists(p, ec)) {
        whole = true;
      } else if (fs::is_directory(p, ec)) {
        for (const auto& e : fs::recursive_directory_iterator(p, ec))
          if (e.is_regular_file()) files.push_back(e.path().string());
      } else {
        files.push_back(p.string());
      }
    }
  }
  if (whole) {
    files.clear();
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(context, ec))
      if (e.is_regular_file()) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

std::string containerfile_path(const Cell& cell, const EngineConfig& config) {
  return (cell.image.builtin.empty() ? config.repo_root : config.data_root) + "/" + cell.image.containerfile;
}

std::string image_tag_for(const Cell& cell, const EngineConfig& config, const std::string& base_id) {
  const std::string containerfile = read_text_file(containerfile_path(cell, config));
  Fnv64 h;
  h.add("opmatrix-image-v2").add(containerfile).add(base_id);
  std::vector<std::pair<std::string, std::string>> args = cell.image.args;
  std::sort(args.begin(), args.end());
  for (const auto& [k, v] : args) h.add(k + "=" + v);
  for (const auto& f : copied_context_files(containerfile, fs::path(config.data_root) / kBuildContext))
    h.add(f.substr(config.data_root.size())).add(read_text_file(f));
  return "localhost/opmatrix/" + stem_of(cell.image.containerfile) + ":" + h.hex();
}

}  // namespace opmatrix
