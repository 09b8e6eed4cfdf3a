// Facts about a LibTorch folder read from its files, without loading it.
#pragma once

#include <optional>
#include <string>

namespace opmatrix {

struct LibtorchFacts {
  std::string root;
  std::string version;           // from torch/version.h, "" if not found
  bool has_cuda = false;         // libtorch_cuda.so / libc10_cuda.so present
  std::optional<bool> cxx11_abi; // from the mangled torchCheckFail symbol in libc10.so
  std::string cmake_prefix;      // folder holding Torch/TorchConfig.cmake
  std::string error;
};

LibtorchFacts inspect_libtorch(const std::string& root);

}  // namespace opmatrix
