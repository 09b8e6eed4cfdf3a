#include "pipeline/engine_config.h"

#include <unistd.h>

#include <filesystem>
#include <regex>

#include "engine/engine.h"
#include "util/data_root.h"

namespace fs = std::filesystem;

namespace opmatrix {

std::string absolute_path(const std::string& path) {
  std::string out = fs::absolute(path).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string repo_root_for(const RunOptions& opts) {
  if (!opts.repo_root.empty()) return absolute_path(opts.repo_root);
  return absolute_path(fs::path(opts.matrix).parent_path().empty() ? "." : fs::path(opts.matrix).parent_path().string());
}

bool valid_memory_limit(const std::string& size) {
  static const std::regex re("[1-9][0-9]{0,12}[bkmgBKMG]?");
  return std::regex_match(size, re);
}

EngineConfig engine_config_for(const RunOptions& opts) {
  EngineConfig config;
  config.kind = opts.engine;
  config.repo_root = repo_root_for(opts);
  config.data_root = data_root();
  if (!opts.memory.empty()) config.memory = opts.memory;
  config.work_dir = absolute_path(opts.work_dir.empty() ? config.repo_root + "/build/opmatrix" : opts.work_dir);
  config.pip_cache = opts.pip_cache.empty() ? "/var/cache/opmatrix/pip" : absolute_path(opts.pip_cache);
  config.extra_ca = opts.extra_ca;
  if (config.extra_ca.empty() && opts.engine == "podman" && fs::exists("/etc/ssl/certs/ca-certificates.crt"))
    config.extra_ca = "/etc/ssl/certs/ca-certificates.crt";
  config.local_base_images = opts.engine == "podman";
  if (opts.as_root) config.user.clear();
  // Not root on the host (a GitHub runner with docker): the steps run as that user, who
  // already owns the build and ccache folders; handing them to nobody would need root.
  else if (::geteuid() != 0) config.user = std::to_string(::getuid()) + ":" + std::to_string(::getgid());
  return config;
}

}  // namespace opmatrix
