// The registry of built-in image kinds. Each kind's module registers itself at static
// initialisation (an ImageKindRegistrar at its foot), so adding a kind is one module plus its
// Containerfile; callers look kinds up here and name none.
//
// Static libraries drop objects nothing refers to, and nothing refers to a kind module: its
// only reference is the registrar's constructor. harness/CMakeLists.txt therefore builds the
// kind modules as an OBJECT library that every consumer of opmatrix_core links as plain
// objects (opmatrix_core's INTERFACE_SOURCES), never through the archive.
#pragma once

#include <string>
#include <vector>

#include "images/image_kind.h"

namespace opmatrix {

// Every registered kind, in name order (the order docs, errors and `init` list them).
const std::vector<const ImageKind*>& image_kinds();
// nullptr: no kind of that name.
const ImageKind* find_image_kind(const std::string& name);

// At a kind module's foot: `const ImageKindRegistrar kRegistrar{kKind};` (the kind must be a
// static object of the same file, defined above it).
struct ImageKindRegistrar {
  explicit ImageKindRegistrar(const ImageKind& kind);
};

}  // namespace opmatrix
