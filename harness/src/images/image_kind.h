// One kind of built-in image (`image: {builtin: NAME}`): everything opmatrix knows about it in
// one module (images/debian.cpp, images/pypi.cpp, …): its recipe (a Containerfile under
// containers/ and the build args a cell's versions give it), its measured size and build time,
// which images share its CUDA layers, and the cells `opmatrix init` proposes in it. Each module
// registers itself (images/image_kinds.h); nothing else names a kind.
#pragma once

#include <string>
#include <vector>

#include "images/image_figures.h"
#include "matrix/model.h"

namespace opmatrix {

struct BuiltinImageRecipe {
  std::string name;                  // what `image: {builtin: NAME}` says
  std::string containerfile;         // relative to the data root
  std::vector<std::string> options;  // the keys the recipe takes besides `builtin`
  std::string what;                  // one line for docs and errors
};

// An option a cell gave, with where it stands (for errors).
struct BuiltinOption {
  std::string key, value;
  SourcePos pos;
};

struct BuiltinImageError {
  SourcePos pos;
  std::string message;
};

// What a kind resolves a cell's image from: the options the cell gave (all of them ones the
// recipe takes), where its image stands, and the errors found so far.
struct ImageRequest {
  const std::vector<BuiltinOption>& options;
  SourcePos where;
  std::vector<BuiltinImageError>& errors;

  const BuiltinOption* option(const std::string& key) const;
  void error(SourcePos pos, std::string message) const { errors.push_back({pos, std::move(message)}); }
};

// A build arg of the cell's image; an empty value is left out (the Containerfile's default).
void add_build_arg(Cell& cell, const std::string& key, const std::string& value);

// A cell `opmatrix init` proposes, as it writes it.
struct InitCell {
  std::string id;           // after the library's prefix: "trixie-torch2.6-cpu"
  std::string torch;
  std::string torchvision;
  std::string cuda;         // "none" = CPU only
  std::string image;        // the `image:` value, a YAML flow map: "{builtin: debian, suite: trixie}"
  std::string image_note;   // the comment after it
  std::string why;          // the comment above the cell: why it is in the starting set
};

class ImageKind {
 public:
  virtual ~ImageKind() = default;

  virtual const BuiltinImageRecipe& recipe() const = 0;
  const std::string& name() const { return recipe().name; }

  // Adds the cell's build args (cell.image.args is empty, builtin and containerfile are set),
  // or errors to `request`, naming the option at fault. The args are content-hashed into the
  // image tag: the same cell must always get the same args, in the same order.
  virtual void resolve(const ImageRequest& request, Cell& cell) const = 0;

  // The measured figures of one cold image (nullopt: none measured for this case).
  virtual std::optional<ImageFigures> figures(bool cuda_layers_present, const std::string& cuda) const = 0;

  // Images of one key share their CUDA layers (docs/containers.md "Shared layers"): the second
  // costs what lies above them. "" = this cell's image shares none.
  virtual std::string cuda_layers_key(const Cell& cell) const = 0;

  // The cells `opmatrix init` proposes in this kind, in the order it writes them.
  virtual std::vector<InitCell> init_cells() const = 0;
};

}  // namespace opmatrix
