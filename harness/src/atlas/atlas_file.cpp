#include "atlas/atlas_file.h"

#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "matrix/load.h"
#include "matrix/yaml_tree.h"
#include "util/suggest.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

using Kind = YamlNode::Kind;

const std::vector<std::string> kTopKeys = {"version", "matrix", "runtimes", "libraries"};
const std::vector<std::string> kLibraryKeys = {"name", "import", "namespace", "releases", "notes"};

// PyPI's own rules, loosely: a project name and a release as pip pins it.
const std::regex kDistribution("^[A-Za-z0-9]([A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$");
const std::regex kRelease("^[0-9][A-Za-z0-9.!+_-]{0,63}$");
const std::regex kModule("^[A-Za-z_][A-Za-z0-9_]{0,63}(\\.[A-Za-z_][A-Za-z0-9_]{0,63}){0,7}$");
const std::regex kNamespace("^[A-Za-z_][A-Za-z0-9_]{0,63}$");

class AtlasReader {
 public:
  AtlasReader(Diagnostics& d, std::string base_dir) : d_(d), base_dir_(std::move(base_dir)) {}

  std::optional<Atlas> read(const YamlNode& root) {
    if (root.kind != Kind::map) {
      d_.error(root.pos, "an atlas file is a map with the keys version, matrix, runtimes and libraries");
      return std::nullopt;
    }
    check_keys(root, kTopKeys, "at the top level");
    Atlas a;
    if (const YamlEntry* v = required(root, "version")) {
      if (auto s = scalar(*v->value, "'version'"); s && *s != "1")
        d_.error(v->value->pos, fmt::format("atlas version '{}' is not one this opmatrix reads (1)", *s));
    }
    const Matrix* matrix = read_matrix(root, a);
    if (const YamlEntry* r = required(root, "runtimes")) read_runtimes(*r->value, matrix, a);
    if (const YamlEntry* l = required(root, "libraries")) read_libraries(*l->value, a);
    if (d_.has_errors() || !matrix) return std::nullopt;
    expand(*matrix, a);
    return a;
  }

 private:
  void check_keys(const YamlNode& map, const std::vector<std::string>& known, const std::string& context) {
    for (const auto& e : map.entries)
      if (std::find(known.begin(), known.end(), e.key) == known.end())
        d_.error(e.key_pos, fmt::format("unknown key '{}' {}{}", e.key, context, did_you_mean(e.key, known)));
  }

  const YamlEntry* required(const YamlNode& map, const std::string& key) {
    const YamlEntry* e = map.find(key);
    if (!e) d_.error(map.pos, fmt::format("missing '{}'", key));
    return e;
  }

  std::optional<std::string> scalar(const YamlNode& n, const std::string& what) {
    if (n.kind == Kind::scalar && !n.text.empty()) return n.text;
    d_.error(n.pos, fmt::format("{} must be a non-empty text, not {}", what, kind_name(n.kind)));
    return std::nullopt;
  }

  // A list of texts; each must match `re`, and none may repeat.
  std::vector<std::pair<std::string, SourcePos>> texts(const YamlNode& n, const std::string& what, const std::regex& re,
                                                       const std::string& form) {
    std::vector<std::pair<std::string, SourcePos>> out;
    if (n.kind != Kind::sequence || n.items.empty()) {
      d_.error(n.pos, fmt::format("{} must be a non-empty list", what));
      return out;
    }
    std::set<std::string> seen;
    for (const auto& item : n.items) {
      auto s = scalar(*item, "an entry of " + what);
      if (!s) continue;
      if (!std::regex_match(*s, re)) {
        d_.error(item->pos, fmt::format("'{}' in {} is not {}", *s, what, form));
      } else if (!seen.insert(*s).second) {
        d_.error(item->pos, fmt::format("'{}' is listed twice in {}", *s, what));
      } else {
        out.emplace_back(*s, item->pos);
      }
    }
    return out;
  }

  // The matrix file whose cells are the runtimes, relative to the atlas file's folder.
  const Matrix* read_matrix(const YamlNode& root, Atlas& a) {
    const YamlEntry* e = required(root, "matrix");
    if (!e) return nullptr;
    auto s = scalar(*e->value, "'matrix'");
    if (!s) return nullptr;
    a.matrix_file = (fs::path(base_dir_) / *s).lexically_normal().string();
    LoadResult loaded = load_matrix_file(a.matrix_file);
    if (!loaded.matrix) {
      std::string first = loaded.diagnostics.empty() ? "" : format_diagnostic(loaded.diagnostics.front());
      d_.error(e->value->pos, fmt::format("the matrix '{}' does not load: {}", *s, first));
      return nullptr;
    }
    matrix_ = std::move(loaded.matrix);
    return &*matrix_;
  }

  void read_runtimes(const YamlNode& n, const Matrix* matrix, Atlas& a) {
    std::vector<std::string> ids;
    if (matrix)
      for (const auto& c : matrix->cells) ids.push_back(c.id);
    for (const auto& [id, pos] : texts(n, "'runtimes'", kDistribution, "a cell id")) {
      const Cell* c = matrix ? matrix->find(id) : nullptr;
      if (matrix && !c) {
        d_.error(pos, fmt::format("no cell '{}' in {}{}", id, a.matrix_file, did_you_mean(id, ids)));
      } else if (c && c->project) {
        d_.error(pos, fmt::format("cell '{}' checks a project ({}): a runtime is a cell of torch alone", id,
                                  c->project->label()));
      } else {
        a.runtimes.push_back(id);
      }
    }
  }

  void read_libraries(const YamlNode& n, Atlas& a) {
    if (n.kind != Kind::sequence || n.items.empty()) {
      d_.error(n.pos, "'libraries' must be a non-empty list of {name, releases, ...}");
      return;
    }
    std::map<std::string, SourcePos> seen;
    for (const auto& item : n.items) {
      if (item->kind != Kind::map) {
        d_.error(item->pos, "a library is a map: {name: DISTRIBUTION, releases: [VERSION, ...]}");
        continue;
      }
      check_keys(*item, kLibraryKeys, "in a library");
      AtlasLibrary lib;
      lib.pos = item->pos;
      if (const YamlEntry* e = required(*item, "name")) {
        if (auto s = scalar(*e->value, "'name'")) {
          if (!std::regex_match(*s, kDistribution)) {
            d_.error(e->value->pos, fmt::format("'{}' is not a PyPI distribution name", *s));
          } else if (auto [it, fresh] = seen.emplace(*s, e->value->pos); !fresh) {
            d_.error(e->value->pos, fmt::format("library '{}' is listed twice (first at line {})", *s, it->second.line));
          }
          lib.name = *s;
        }
      }
      optional_matching(*item, "import", kModule, "a Python module name (e.g. mylib or mylib.ops)", lib.import_module);
      optional_matching(*item, "namespace", kNamespace, "a dispatcher namespace (e.g. torchaudio)", lib.ns);
      if (const YamlEntry* e = item->find("notes")) {
        if (auto s = scalar(*e->value, "'notes'")) lib.notes = *s;
      }
      if (const YamlEntry* e = required(*item, "releases"))
        for (const auto& [v, pos] : texts(*e->value, "'releases'", kRelease, "a release as pip pins it (e.g. 2.5.1)"))
          lib.releases.push_back(v);
      a.libraries.push_back(std::move(lib));
    }
  }

  void optional_matching(const YamlNode& n, const char* key, const std::regex& re, const char* form, std::string& out) {
    const YamlEntry* e = n.find(key);
    if (!e) return;
    auto s = scalar(*e->value, fmt::format("'{}'", key));
    if (!s) return;
    if (!std::regex_match(*s, re))
      d_.error(e->value->pos, fmt::format("{} '{}' is not {}", key, *s, form));
    else
      out = *s;
  }

  // Runtime-major: every release of every library in the first runtime, then the next, so
  // one image serves a run of pairs.
  void expand(const Matrix& matrix, Atlas& a) {
    a.pairs.file = a.file;
    a.pairs.version = matrix.version;
    a.pairs.cuda_archs = matrix.cuda_archs;
    for (const auto& runtime : a.runtimes) {
      const Cell& r = *matrix.find(runtime);
      for (const auto& lib : a.libraries)
        for (const auto& release : lib.releases) {
          Cell c = r;
          c.id = atlas_pair_id(lib.name, release, runtime);
          c.pos = lib.pos;
          c.expect.clear();  // the runtime's expectations are about our kernels
          c.where = {"local", "github"};
          c.in_default = true;
          c.atlas_pair = true;
          c.notes = "atlas: " + lib.name + " " + release + " in " + runtime;
          Project p;
          p.wheel = lib.name + "==" + release;
          p.kind = "wheel";
          p.ns = lib.ns;
          p.import_module = lib.import_module;
          p.name = lib.name;
          c.project = std::move(p);
          a.pairs.cells.push_back(std::move(c));
        }
    }
  }

  Diagnostics& d_;
  std::string base_dir_;
  std::optional<Matrix> matrix_;
};

}  // namespace

std::string atlas_pair_id(const std::string& library, const std::string& release, const std::string& runtime) {
  return library + "-" + release + "--" + runtime;
}

AtlasLoad load_atlas_text(const std::string& text, const std::string& file_name, const std::string& base_dir) {
  Diagnostics diag(file_name);
  AtlasLoad out;
  if (YamlNodePtr root = parse_yaml(text, diag)) {
    if (root->kind == Kind::null) {
      diag.error({1, 1}, "empty atlas: expected the keys version, matrix, runtimes and libraries");
    } else {
      AtlasReader reader(diag, base_dir);
      auto a = reader.read(*root);
      if (a && !diag.has_errors()) {
        a->file = file_name;
        a->pairs.file = file_name;
        out.atlas = std::move(a);
      }
    }
  }
  out.diagnostics = diag.sorted();
  return out;
}

AtlasLoad load_atlas_file(const std::string& path) {
  AtlasLoad refused;
  std::optional<std::string> text = read_yaml_file(
      path, "atlas file", "does it exist? the repository's atlas.yaml is the example", refused.diagnostics);
  if (!text) return refused;
  const std::string base = fs::path(path).parent_path().string();
  return load_atlas_text(*text, path, base.empty() ? "." : base);
}

}  // namespace opmatrix
