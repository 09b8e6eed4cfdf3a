// Version and architecture vocabulary: what a well-formed torch/torchvision/CUDA version and
// a CUDA arch look like, and which torchvision pip pairs with which torch.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace opmatrix {

// PEP 440-ish release: 2.6.0, 1.13.1, 2.11.0+cu130, 2.8.0rc1, 1.13.0a0.
bool is_package_version(const std::string& v);
// MAJOR.MINOR, e.g. 12.4, or the word none.
bool is_cuda_version(const std::string& v);
// CMake/TORCH_CUDA_ARCH_LIST style: 8.0, 9.0a, 10.0f.
bool is_arch_syntax(const std::string& arch);
const std::vector<std::string>& known_archs();  // every compute capability NVIDIA has shipped

struct MajorMinor {
  int major = 0;
  int minor = 0;
};
std::optional<MajorMinor> major_minor(const std::string& version);

// By MAJOR.MINOR numerically ("9.0" < "10.0", "2.6.0" < "2.14.1"), ties by the text ("9.0" <
// "9.0a"): a strict weak order, also for versions that do not parse.
bool version_less(const std::string& a, const std::string& b);

// The torchvision pip installs beside this torch (e.g. 2.6.0 -> 0.21.0): the release made for it,
// or, while PyPI has none for it yet, the newest release that accepts it. nullopt: a torch the
// pairing table does not know. `opmatrix init` writes it; validate and the torchvision check
// compare a cell's torchvision with its MAJOR.MINOR: one table, so they cannot disagree.
std::optional<std::string> pip_torchvision_for(const std::string& torch_version);
std::optional<MajorMinor> upstream_torchvision_for(const std::string& torch_version);

}  // namespace opmatrix
