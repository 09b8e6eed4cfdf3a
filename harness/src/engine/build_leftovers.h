// What an interrupted `podman build` leaves behind. A build killed mid-step (our time limit, a
// Ctrl-C, a disk that filled) keeps its buildah working containers ("…-working-container",
// state "storage"), and they pin every intermediate image of that build: `podman rmi` and
// `podman image prune` then free nothing, and each interrupted build of a 4-8 GB cell image
// costs its size until someone finds them with `podman ps -a --external`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opmatrix {

struct BuildLeftover {
  std::string container_id;
  std::string image_id;  // the image the working container stood on
};

// The buildah working containers in `podman ps -a --external --format json` created at or after
// `since_epoch_s` (seconds since the epoch). Throws std::runtime_error when the text is not that
// JSON.
std::vector<BuildLeftover> build_leftovers(const std::string& ps_json, std::int64_t since_epoch_s);

// The untagged images in `podman images -a --filter dangling=true --format json` created at or
// after `since_epoch_s` that no container uses: the stages of multi-stage builds made since then
// (a PyPI runtime image leaves a 5.7 GB one), which removing the tagged image leaves behind.
// Throws std::runtime_error when the text is not that JSON.
std::vector<std::string> unused_images_since(const std::string& images_json, std::int64_t since_epoch_s);

}  // namespace opmatrix
