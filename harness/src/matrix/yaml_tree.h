// A YAML document as a tree that remembers where every node came from.
//
// yaml-cpp's own Node API loses duplicate keys (the last one silently wins) and shares
// aliased nodes without bound, so we build our own tree from its event stream: duplicate
// keys, recursive aliases, alias bombs and runaway nesting become positioned errors.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "matrix/diagnostic.h"

namespace opmatrix {

struct YamlNode;
using YamlNodePtr = std::shared_ptr<const YamlNode>;

struct YamlEntry {
  std::string key;
  SourcePos key_pos;
  YamlNodePtr value;
};

struct YamlNode {
  enum class Kind { null, scalar, sequence, map };
  Kind kind = Kind::null;
  SourcePos pos;
  std::string text;     // scalar text exactly as written (no float/bool conversion)
  bool quoted = false;  // scalar was quoted, so `"1.10"` and `1.10` can be told apart
  std::vector<YamlNodePtr> items;
  std::vector<YamlEntry> entries;  // map entries in file order, `<<` merges applied
  std::size_t expanded_size = 1;   // nodes this subtree stands for once aliases expand

  const YamlEntry* find(const std::string& key) const;
};

const char* kind_name(YamlNode::Kind kind);

struct YamlLimits {
  std::size_t max_bytes = 4u << 20;  // a matrix is a few KiB; 4 MiB is far beyond any real one
  int max_depth = 64;
  std::size_t max_nodes = 200000;    // after alias expansion
};

// Parses one YAML document. Returns nullptr (with errors in `diag`) when the text is not
// usable; returns a null-kind node for an empty document.
YamlNodePtr parse_yaml(const std::string& text, Diagnostics& diag, const YamlLimits& limits = {});

// A YAML file's text, or nullopt with one positioned error: a folder, a file that cannot be
// opened ("cannot open the WHAT (HINT)"), or one larger than YamlLimits::max_bytes. WHAT names
// the kind of file: "matrix file".
std::optional<std::string> read_yaml_file(const std::string& path, const std::string& what, const std::string& hint,
                                          std::vector<Diagnostic>& diagnostics);

}  // namespace opmatrix
