// Debian's suites as the built-in images use them: which torch and torchvision each ships as
// its own packages, and which carries the non-free CUDA toolkit opmatrix builds with. Shared by
// the Debian kinds (whose image is a suite's packages) and pypi (whose nvcc before CUDA 13 is
// a suite's toolkit).
#pragma once

#include <optional>
#include <string>

#include "images/image_kind.h"

namespace opmatrix {

struct DebianSuite {
  const char* name;
  const char* torch;        // python3-torch, "" = none opmatrix uses
  const char* torchvision;  // python3-torchvision beside it
  const char* toolkit_nvcc; // nvidia-cuda-toolkit opmatrix builds with, "" = none
};

std::optional<DebianSuite> find_debian_suite(const std::string& name);

// The Debian suite that ships a torch version as its python3-torch ("" if none does).
std::string debian_suite_for_torch(const std::string& torch);

// The suite whose non-free CUDA toolkit is this nvcc (nullptr: none). The only nvcc before
// CUDA 13 that installs without NVIDIA's own repositories (PyPI's cu11/cu12 nvcc wheels hold
// ptxas, no compiler).
const char* debian_toolkit_suite(const std::string& nvcc);

// The nvcc of the suite toolkit for this CUDA major version ("" if no suite has one), and
// "11.8 (bookworm) or 12.4 (trixie)": every toolkit, for errors.
std::string debian_toolkit_nvcc(int cuda_major);
std::string debian_toolkits_text();

// The `suite` option as the cell gave it, with an error when opmatrix knows no such suite; ""
// when the cell gave none.
std::string checked_suite_option(const ImageRequest& request);

// The suite of an image of Debian's own torch: the `suite` option, else the suite that ships
// the cell's torch (an error when none does).
std::string suite_for_debian_torch(const ImageRequest& request, const Cell& cell);

}  // namespace opmatrix
