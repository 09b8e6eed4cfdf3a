#include "matrix/load.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "checks/registry.h"
#include "matrix/builtin_images.h"
#include "matrix/expand.h"
#include "matrix/project_name.h"
#include "matrix/promises.h"
#include "matrix/versions.h"
#include "matrix/yaml_tree.h"
#include "util/suggest.h"

namespace fs = std::filesystem;

namespace opmatrix {
namespace {

using Kind = YamlNode::Kind;

const std::vector<std::string> kTopKeys = {"version", "ops", "cuda_archs", "defaults", "cells"};
const std::vector<std::string> kCellKeys = {"id",      "torch",      "torchvision", "cuda",
                                            "image",   "runner",     "where",       "default",
                                            "cuda_archs", "expect",  "timeouts",    "notes",
                                            "matrix",  "project",    "reference",   "diagnoses"};
const std::vector<std::string> kProjectKeys = {"path", "pypi", "wheel", "kind", "namespace", "ops", "smoke", "import", "samples",
                                               "promises", "tests", "test_requires", "requires"};
const std::vector<std::string> kImageKeys = {"containerfile", "args", "ref", "builtin"};
const std::vector<std::string> kExpectKeys = {"check", "op", "arch", "subtest", "status", "reason"};
constexpr std::size_t kMaxArchs = 32;

// Patterns are string literals: compile each once (building a std::regex costs more than
// matching with it; the fuzzer spent a third of its time here).
bool matches(const std::string& s, const char* pattern) {
  static std::mutex mutex;
  static std::map<std::string, std::regex> compiled;
  const std::regex* re;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = compiled.find(pattern);
    if (it == compiled.end()) it = compiled.emplace(pattern, std::regex(pattern)).first;
    re = &it->second;
  }
  return std::regex_match(s, *re);
}

class Loader {
 public:
  Loader(Diagnostics& diag, std::string base_dir) : d_(diag), base_dir_(std::move(base_dir)) {}

  std::optional<Matrix> load(const YamlNodePtr& root) {
    if (root->kind == Kind::null) {
      d_.error({1, 1}, "empty matrix: expected the keys version, ops, cuda_archs and cells");
      return std::nullopt;
    }
    if (!expect_kind(*root, Kind::map, "the matrix file")) return std::nullopt;
    check_keys(*root, kTopKeys, "at the top level");

    Matrix m;
    read_version(*root, m);
    // Optional when every cell is a project naming its own ops (checked after the cells).
    const YamlEntry* top_ops = root->find("ops");
    if (top_ops) m.ops = read_ops(*top_ops->value);
    if (const YamlEntry* e = root->find("cuda_archs")) m.cuda_archs = read_archs(*e->value);
    matrix_archs_ = m.cuda_archs;
    ops_ = m.ops;

    YamlNodePtr defaults;
    if (const YamlEntry* e = root->find("defaults")) {
      if (expect_kind(*e->value, Kind::map, "'defaults'")) {
        defaults = e->value;
        std::vector<std::string> allowed;
        for (const auto& k : kCellKeys)
          if (k != "id" && k != "matrix") allowed.push_back(k);
        check_keys(*defaults, allowed, "in 'defaults'");
      }
    }

    const YamlEntry* cells = require(*root, "cells", root->pos);
    if (cells && expect_kind(*cells->value, Kind::sequence, "'cells'")) {
      if (cells->value->items.empty()) d_.error(cells->value->pos, "empty matrix: 'cells' lists no cells");
      for (const auto& entry : cells->value->items) read_cell_entry(entry, defaults, m);
    }
    check_duplicate_ids(m);
    check_references(m);
    if (!top_ops)
      for (const auto& c : m.cells)
        if (!c.project) {
          d_.error(c.pos, fmt::format("missing required key 'ops' at the top level: cell '{}' checks opmatrix's "
                                      "kernels/ (only project cells name their own ops)", c.id));
          break;
        }
    if (d_.has_errors()) return std::nullopt;
    return m;
  }

 private:
  // ---- small typed readers, each reporting at the offending node ----

  bool expect_kind(const YamlNode& n, Kind kind, const std::string& what) {
    if (n.kind == kind) return true;
    d_.error(n.pos, fmt::format("{} must be a {}, not a {}", what, kind_name(kind), kind_name(n.kind)));
    return false;
  }

  const YamlEntry* require(const YamlNode& map, const std::string& key, SourcePos where) {
    const YamlEntry* e = map.find(key);
    if (!e) d_.error(where, fmt::format("missing required key '{}'", key));
    return e;
  }

  void check_keys(const YamlNode& map, const std::vector<std::string>& known, const std::string& context) {
    for (const auto& e : map.entries)
      if (std::find(known.begin(), known.end(), e.key) == known.end())
        d_.error(e.key_pos, fmt::format("unknown key '{}' {}{}", e.key, context, did_you_mean(e.key, known)));
  }

  std::optional<std::string> scalar(const YamlNode& n, const std::string& what) {
    if (!expect_kind(n, Kind::scalar, what)) return std::nullopt;
    return n.text;
  }

  // A list of scalars; a single scalar is accepted as a one-element list when `allow_single`.
  std::optional<std::vector<std::string>> scalar_list(const YamlNode& n, const std::string& what,
                                                      bool allow_single) {
    if (allow_single && n.kind == Kind::scalar) return std::vector<std::string>{n.text};
    if (!expect_kind(n, Kind::sequence, what)) return std::nullopt;
    std::vector<std::string> out;
    bool ok = true;
    for (const auto& item : n.items) {
      if (item->kind != Kind::scalar) {
        d_.error(item->pos, fmt::format("each entry of {} must be a scalar, not a {}", what, kind_name(item->kind)));
        ok = false;
        continue;
      }
      out.push_back(item->text);
    }
    if (!ok) return std::nullopt;
    return out;
  }

  std::optional<bool> boolean(const YamlNode& n, const std::string& what) {
    auto s = scalar(n, what);
    if (!s) return std::nullopt;
    if (*s == "true") return true;
    if (*s == "false") return false;
    d_.error(n.pos, fmt::format("{} must be true or false, not '{}'", what, *s));
    return std::nullopt;
  }

  // ---- top level ----

  void read_version(const YamlNode& root, Matrix& m) {
    const YamlEntry* e = require(root, "version", root.pos);
    if (!e) return;
    auto s = scalar(*e->value, "'version'");
    if (!s) return;
    if (!matches(*s, "^[0-9]{1,4}$")) {
      d_.error(e->value->pos, fmt::format("'version' must be a whole number, not '{}'", *s));
    } else if (std::stoi(*s) != 1) {
      d_.error(e->value->pos, fmt::format("matrix version {} is not supported: this opmatrix reads version 1", *s));
    } else {
      m.version = 1;
    }
  }

  std::vector<std::string> read_ops(const YamlNode& n) {
    auto list = scalar_list(n, "'ops'", false);
    if (!list) return {};
    if (list->empty()) d_.error(n.pos, "'ops' lists no ops");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::string& op = (*list)[i];
      if (!matches(op, "^[a-z_][a-z0-9_]{0,63}$"))
        d_.error(n.items[i]->pos, fmt::format("op name '{}' is not an identifier (lowercase letters, digits, _)", op));
      else if (!seen.insert(op).second)
        d_.error(n.items[i]->pos, fmt::format("op '{}' is listed twice", op));
    }
    return *list;
  }

  std::vector<std::string> read_archs(const YamlNode& n) {
    auto list = scalar_list(n, "'cuda_archs'", false);
    if (!list) return {};
    if (list->size() > kMaxArchs) {
      d_.error(n.pos, fmt::format("'cuda_archs' lists {} archs; at most {} (there are not that many GPU "
                                  "generations)", list->size(), kMaxArchs));
      return {};
    }
    std::set<std::string> seen;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::string& arch = (*list)[i];
      const SourcePos pos = n.items[i]->pos;
      if (!is_arch_syntax(arch)) {
        d_.error(pos, fmt::format("CUDA arch '{}' is malformed: write MAJOR.MINOR as in 8.0 or 9.0a", arch));
        continue;
      }
      std::string base = arch;
      if (base.back() == 'a' || base.back() == 'f') base.pop_back();
      const auto& known = known_archs();
      if (std::find(known.begin(), known.end(), base) == known.end())
        d_.error(pos, fmt::format("unknown CUDA arch '{}'{}", arch, did_you_mean(base, known)));
      else if (!seen.insert(arch).second)
        d_.error(pos, fmt::format("CUDA arch '{}' is listed twice", arch));
    }
    return *list;
  }

  // ---- cells ----

  void read_cell_entry(const YamlNodePtr& entry, const YamlNodePtr& defaults, Matrix& m) {
    if (!expect_kind(*entry, Kind::map, "a cell")) return;
    const YamlEntry* axes = entry->find("matrix");
    if (!axes) {
      read_cell(*with_defaults(entry, defaults), m, "");
      return;
    }
    MatrixAxes spec;
    if (!read_axes(*axes->value, spec)) return;
    const std::vector<Combination> combos = expand_axes(spec, d_);
    if (combos.empty() && spec.exclude.size() + spec.include.size() > 0 && !d_.has_errors())
      d_.error(axes->value->pos, "this cell's matrix expands to no cells");
    std::set<std::string> names;
    for (const auto& a : spec.axes) names.insert(a.name);
    for (const auto& inc : spec.include)
      for (const auto& [k, v] : inc.values) names.insert(k);
    for (const auto& combo : combos) {
      YamlNodePtr instance = instantiate(*entry, combo, names, axes->value->pos);
      std::string where;
      for (const auto& [k, v] : combo) where += fmt::format("{}{}={}", where.empty() ? "" : ", ", k, v);
      read_cell(*with_defaults(instance, defaults), m, where);
    }
  }

  bool read_axes(const YamlNode& n, MatrixAxes& spec) {
    if (!expect_kind(n, Kind::map, "'matrix'")) return false;
    spec.pos = n.pos;
    bool ok = true;
    for (const auto& e : n.entries) {
      if (e.key == "include" || e.key == "exclude") {
        if (!expect_kind(*e.value, Kind::sequence, fmt::format("'{}'", e.key))) { ok = false; continue; }
        for (const auto& item : e.value->items) {
          ComboEntry combo{item->pos, {}};
          if (!expect_kind(*item, Kind::map, fmt::format("an entry of '{}'", e.key))) { ok = false; continue; }
          for (const auto& kv : item->entries) {
            auto v = scalar(*kv.value, fmt::format("'{}'", kv.key));
            if (!v) { ok = false; continue; }
            combo.values.emplace_back(kv.key, *v);
          }
          (e.key == "include" ? spec.include : spec.exclude).push_back(std::move(combo));
        }
        continue;
      }
      if (!matches(e.key, "^[a-z_][a-z0-9_]{0,63}$")) {
        d_.error(e.key_pos, fmt::format("matrix axis '{}' is not an identifier (lowercase letters, digits, _)", e.key));
        ok = false;
        continue;
      }
      auto values = scalar_list(*e.value, fmt::format("axis '{}'", e.key), false);
      if (!values) { ok = false; continue; }
      if (values->empty()) {
        d_.error(e.value->pos, fmt::format("axis '{}' has no values", e.key));
        ok = false;
      }
      spec.axes.push_back({e.key, e.key_pos, *values});
    }
    if (ok && spec.axes.empty() && spec.include.empty()) {
      d_.error(n.pos, "'matrix' needs at least one axis or an 'include' list");
      ok = false;
    }
    return ok;
  }

  // A copy of the template with `{axis}` placeholders filled in; axis values that name a
  // cell field the template leaves out become that field.
  YamlNodePtr instantiate(const YamlNode& tmpl, const Combination& combo,
                          const std::set<std::string>& names, SourcePos matrix_pos) {
    auto out = std::make_shared<YamlNode>(tmpl);
    out->entries.clear();
    for (const auto& e : tmpl.entries)
      if (e.key != "matrix") out->entries.push_back({e.key, e.key_pos, substitute(e.value, combo, names)});
    for (const auto& [k, v] : combo) {
      if (out->find(k) || std::find(kCellKeys.begin(), kCellKeys.end(), k) == kCellKeys.end()) continue;
      auto value = std::make_shared<YamlNode>();
      value->kind = Kind::scalar;
      value->text = v;
      value->pos = matrix_pos;
      out->entries.push_back({k, matrix_pos, value});
    }
    return out;
  }

  YamlNodePtr substitute(const YamlNodePtr& n, const Combination& combo, const std::set<std::string>& names) {
    auto out = std::make_shared<YamlNode>(*n);
    if (n->kind == Kind::scalar) {
      static const std::regex placeholder(R"(\{([A-Za-z_][A-Za-z0-9_]*)\})");
      std::string text;
      auto begin = std::sregex_iterator(n->text.begin(), n->text.end(), placeholder);
      std::size_t last = 0;
      for (auto it = begin; it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[1];
        text += n->text.substr(last, it->position() - last);
        last = it->position() + it->length();
        const std::string* value = lookup(combo, name);
        if (value) {
          text += *value;
        } else if (!names.count(name)) {
          d_.error(n->pos, fmt::format("unknown placeholder '{{{}}}': this cell's matrix defines {}{}", name,
                                       fmt::join(names, ", "),
                                       did_you_mean(name, {names.begin(), names.end()})));
        }
      }
      out->text = text + n->text.substr(last);
    }
    for (auto& item : out->items) item = substitute(item, combo, names);
    for (auto& e : out->entries) e.value = substitute(e.value, combo, names);
    return out;
  }

  YamlNodePtr with_defaults(const YamlNodePtr& cell, const YamlNodePtr& defaults) {
    if (!defaults) return cell;
    auto out = std::make_shared<YamlNode>(*cell);
    for (const auto& e : defaults->entries)
      if (!out->find(e.key)) out->entries.push_back(e);
    return out;
  }

  void read_cell(const YamlNode& n, Matrix& m, const std::string& combo) {
    const std::string ctx = combo.empty() ? "in cell" : fmt::format("in cell (matrix {})", combo);
    check_keys(n, kCellKeys, ctx);
    Cell c;
    c.pos = n.pos;
    c.cuda_archs = matrix_archs_;
    const auto suffix = [&] { return combo.empty() ? std::string() : fmt::format(" (matrix {})", combo); };

    if (const YamlEntry* e = require(n, "id", n.pos)) {
      if (auto s = scalar(*e->value, "'id'")) {
        c.id = *s;
        c.pos = e->value->pos;
        if (!matches(*s, "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"))
          d_.error(e->value->pos, fmt::format("cell id '{}' is not a safe file name: use letters, digits, '.', "
                                              "'_' and '-', starting with a letter or digit (it names "
                                              "results/<id>.json){}", *s, suffix()));
      }
    }
    for (const char* key : {"torch", "torchvision"}) {
      const YamlEntry* e = require(n, key, n.pos);
      if (!e) continue;
      auto s = scalar(*e->value, fmt::format("'{}'", key));
      if (!s) continue;
      if (!is_package_version(*s))
        d_.error(e->value->pos, fmt::format("malformed {} version '{}' (expected a release such as 2.6.0){}",
                                            key, *s, suffix()));
      (std::string(key) == "torch" ? c.torch : c.torchvision) = *s;
    }
    if (const YamlEntry* e = require(n, "cuda", n.pos)) {
      if (auto s = scalar(*e->value, "'cuda'")) {
        c.cuda = *s;
        if (!is_cuda_version(*s))
          d_.error(e->value->pos, fmt::format("malformed cuda version '{}' (expected MAJOR.MINOR such as 12.4, "
                                              "or none){}", *s, suffix()));
      }
    }
    read_runner_and_image(n, c);
    read_where(n, c);
    if (const YamlEntry* e = n.find("reference"))
      if (auto b = boolean(*e->value, "'reference'")) c.reference = *b;
    if (const YamlEntry* e = n.find("default"))
      if (auto b = boolean(*e->value, "'default'")) c.in_default = *b;
    if (const YamlEntry* e = n.find("cuda_archs")) c.cuda_archs = read_archs(*e->value);
    if (const YamlEntry* e = n.find("project")) read_project(*e->value, c);  // before expect: it names the ops
    if (const YamlEntry* e = n.find("expect")) read_expect(*e->value, c);
    if (const YamlEntry* e = n.find("timeouts")) read_timeouts(*e->value, c);
    if (const YamlEntry* e = n.find("notes"))
      if (auto s = scalar(*e->value, "'notes'")) c.notes = *s;
    if (const YamlEntry* e = n.find("diagnoses"))
      if (auto s = scalar(*e->value, "'diagnoses'")) c.diagnoses = *s;
    pairing_note(n, c);
    m.cells.push_back(std::move(c));
  }

  void read_runner_and_image(const YamlNode& n, Cell& c) {
    if (const YamlEntry* e = n.find("runner")) {
      if (auto s = scalar(*e->value, "'runner'")) {
        if (*s == "host") c.runner = Runner::host;
        else if (*s != "container")
          d_.error(e->value->pos, fmt::format("'runner' must be container or host, not '{}'{}", *s,
                                              did_you_mean(*s, {"container", "host"})));
      }
    }
    const YamlEntry* image = n.find("image");
    if (c.runner == Runner::host) {
      if (image) d_.error(image->key_pos, "a cell with 'runner: host' runs in the machine's own environment; remove 'image'");
      return;
    }
    if (!image) {
      d_.error(n.pos, "missing required key 'image' (or set 'runner: host')");
      return;
    }
    const YamlNode& img = *image->value;
    // `image: pypi` / `image: debian:trixie`: a built-in recipe by name.
    if (img.kind == Kind::scalar) {
      const auto colon = img.text.find(':');
      std::vector<BuiltinOption> options;
      if (colon != std::string::npos) options.push_back({"suite", img.text.substr(colon + 1), img.pos});
      read_builtin_image(img.text.substr(0, colon), img.pos, options, c);
      return;
    }
    if (!expect_kind(img, Kind::map, "'image'")) return;
    if (const YamlEntry* b = img.find("builtin")) {
      std::vector<BuiltinOption> options;
      for (const auto& e : img.entries)
        if (e.key != "builtin")
          if (auto v = scalar(*e.value, fmt::format("'{}'", e.key))) options.push_back({e.key, *v, e.key_pos});
      if (auto name = scalar(*b->value, "'builtin'")) read_builtin_image(*name, b->value->pos, options, c);
      return;
    }
    check_keys(img, kImageKeys, "in 'image'");
    const YamlEntry* file = img.find("containerfile");
    const YamlEntry* ref = img.find("ref");
    if (!file == !ref) {
      d_.error(img.pos, "'image' needs exactly one of 'builtin', 'containerfile' or 'ref'");
      return;
    }
    if (ref) {
      if (auto s = scalar(*ref->value, "'ref'")) {
        c.image.ref = *s;
        if (!matches(*s, "^[a-z0-9][a-z0-9._/:-]{0,254}(@sha256:[a-f0-9]{64})?$"))
          d_.error(ref->value->pos, fmt::format("image ref '{}' is not a valid image reference", *s));
      }
    } else if (auto s = scalar(*file->value, "'containerfile'")) {
      c.image.containerfile = *s;
      check_repo_path(*s, file->value->pos);
    }
    if (const YamlEntry* args = img.find("args")) {
      if (!expect_kind(*args->value, Kind::map, "'args'")) return;
      for (const auto& a : args->value->entries) {
        if (!matches(a.key, "^[A-Z_][A-Z0-9_]{0,63}$"))
          d_.error(a.key_pos, fmt::format("build arg name '{}' must be UPPER_CASE letters, digits and _", a.key));
        auto v = scalar(*a.value, fmt::format("build arg '{}'", a.key));
        if (!v) continue;
        if (!matches(*v, "^[A-Za-z0-9._:/+=@,~-]{0,512}$"))
          d_.error(a.value->pos, fmt::format("build arg {}='{}' holds characters that are not allowed "
                                             "(spaces, quotes, $, ;, `, |, &, <, >, \\ …)", a.key, *v));
        c.image.args.emplace_back(a.key, *v);
      }
    }
  }

  void read_builtin_image(const std::string& name, SourcePos pos, const std::vector<BuiltinOption>& options, Cell& c) {
    const BuiltinImageRecipe* recipe = find_builtin_image(name);
    if (!recipe) {
      std::vector<std::string> names;
      for (const auto& r : builtin_image_recipes()) names.push_back(r.name);
      d_.error(pos, fmt::format("no built-in image '{}' (built-in: {}; or give your own: image: {{containerfile: "
                                "FILE}}){}", name, fmt::join(names, ", "), did_you_mean(name, names)));
      return;
    }
    for (const auto& e : resolve_builtin_image(*recipe, options, pos, c)) d_.error(e.pos, e.message);
  }

  // A project folder: the matrix's own folder ("."), or one under it; only that is mounted.
  bool read_project_path(const YamlEntry& e, Project& p) {
    auto s = scalar(*e.value, "'path'");
    if (!s) return false;
    const fs::path given(*s);
    if (given.is_absolute() || std::any_of(given.begin(), given.end(), [](const fs::path& part) { return part == ".."; })) {
      d_.error(e.value->pos, fmt::format("project path '{}' is outside the matrix's folder {}: only that folder is "
                                         "mounted into the cells. Put the matrix file at the root of the repository "
                                         "that holds the project (path: . for the repository itself)",
                                         *s, fs::absolute(base_dir_).lexically_normal().string()));
      return false;
    }
    if (!check_repo_path(*s, e.value->pos, "project path", true)) return false;
    p.path = *s;
    while (p.path.size() > 1 && p.path.back() == '/') p.path.pop_back();
    p.name = project_name(fs::path(base_dir_) / p.path);
    return true;
  }

  // Containerfiles and projects must live inside the repository: only it is mounted (/src)
  // and hashed.
  bool check_repo_path(const std::string& path, SourcePos pos, const char* what = "containerfile",
                       bool folder = false) {
    if (path.empty() || path[0] == '/' || !matches(path, "^[A-Za-z0-9._/-]{1,255}$")) {
      d_.error(pos, fmt::format("{} '{}' must be a relative path inside the repository", what, path));
      return false;
    }
    for (const auto& part : fs::path(path))
      if (part == "..") {
        d_.error(pos, fmt::format("{} '{}' leaves the repository ('..' is not allowed)", what, path));
        return false;
      }
    const fs::path full = fs::path(base_dir_) / path;
    if (folder ? !fs::is_directory(full) : !fs::is_regular_file(full)) {
      d_.error(pos, fmt::format("{} '{}' does not exist (looked in {})", what, path, full.lexically_normal().string()));
      return false;
    }
    return true;
  }

  void read_project(const YamlNode& n, Cell& c) {
    if (!expect_kind(n, Kind::map, "'project'")) return;
    check_keys(n, kProjectKeys, "in 'project'");
    Project p;
    if (!read_project_source(n, p)) return;
    read_project_kind(n, p);
    read_matching(n, "namespace", "^[A-Za-z_][A-Za-z0-9_]{0,63}$", "is not a C++ identifier", p.ns);
    if (const YamlEntry* e = n.find("ops")) {
      if (auto ops = scalar_list(*e->value, "'ops'", false)) {
        for (const auto& op : *ops)
          if (!matches(op, "^[A-Za-z_][A-Za-z0-9_]{0,63}$"))
            d_.error(e->value->pos, fmt::format("op name '{}' is not an identifier", op));
        p.ops = *ops;
      }
      if (p.ns.empty()) d_.error(e->key_pos, "'ops' needs the 'namespace' they are registered in");
    }
    read_matching(n, "import", "^[A-Za-z_][A-Za-z0-9_]{0,63}(\\.[A-Za-z_][A-Za-z0-9_]{0,63}){0,7}$",
                  "is not a Python module name (e.g. mylib or mylib.ops)", p.import_module);
    read_project_samples_and_smoke(n, p);
    read_project_tests(n, p);
    if (const YamlEntry* e = n.find("promises")) p.promises = read_promises(*e->value, p.ops, d_);
    c.project = p;
  }

  // Where the project comes from: exactly one of path, pypi and wheel. False: it was not read.
  bool read_project_source(const YamlNode& n, Project& p) {
    const YamlEntry* path = n.find("path");
    const YamlEntry* pypi = n.find("pypi");
    const YamlEntry* wheel = n.find("wheel");
    if ((path ? 1 : 0) + (pypi ? 1 : 0) + (wheel ? 1 : 0) != 1) {
      d_.error(n.pos, "'project' needs exactly one of 'path' (a folder under the matrix's folder), 'pypi' (an sdist "
                      "from PyPI, NAME==VERSION) or 'wheel' (a prebuilt wheel from PyPI, NAME==VERSION)");
      return false;
    }
    if (path) return read_project_path(*path, p);
    const YamlEntry* e = pypi ? pypi : wheel;
    auto s = scalar(*e->value, fmt::format("'{}'", e->key));
    if (!s) return false;
    // Pinned: a result must say which release it judged, and a re-run must judge the same one.
    if (!matches(*s, "^[A-Za-z0-9]([A-Za-z0-9._-]{0,98}[A-Za-z0-9])?==[0-9][A-Za-z0-9.!+_-]{0,63}$")) {
      d_.error(e->value->pos, fmt::format("{} '{}' must be a pinned release, NAME==VERSION (e.g. "
                                          "torch-scatter==2.1.2), so that every run judges the same files", e->key, *s));
      return false;
    }
    (e == pypi ? p.pypi : p.wheel) = *s;
    return true;
  }

  // The build kind: as declared, where the source allows one; else what the source implies (a
  // path project: the build files its folder holds).
  void read_project_kind(const YamlNode& n, Project& p) {
    const YamlEntry* path = n.find("path");
    const bool pypi = n.find("pypi"), wheel = n.find("wheel");
    const YamlEntry* e = n.find("kind");
    if (e) {
      if (auto k = scalar(*e->value, "'kind'")) {
        p.kind = *k;
        if (wheel)
          d_.error(e->value->pos, "a 'wheel' project is installed, not built: remove 'kind'");
        else if (pypi && *k != "setuptools")
          d_.error(e->value->pos, fmt::format("a 'pypi' project is built from its sdist by pip (kind setuptools, "
                                              "whatever its build backend), not '{}'", *k));
        else if (*k != "cmake" && *k != "setuptools")
          d_.error(e->value->pos, fmt::format("project kind must be cmake or setuptools, not '{}'{}", *k,
                                              did_you_mean(*k, {"cmake", "setuptools"})));
      }
    }
    if (pypi) p.kind = "setuptools";
    if (wheel) p.kind = "wheel";
    if (!path) return;
    const fs::path dir = fs::path(base_dir_) / p.path;
    const bool setuptools = fs::exists(dir / "setup.py") || fs::exists(dir / "pyproject.toml");
    const bool cmake = fs::exists(dir / "CMakeLists.txt");
    if (!e) {
      // As `opmatrix init` decides: with both, the setup.py build is what users pip-install.
      p.kind = setuptools ? "setuptools" : cmake ? "cmake" : "";
      if (p.kind.empty())
        d_.error(path->value->pos, fmt::format("project '{}' has no CMakeLists.txt, setup.py or pyproject.toml; "
                                               "set 'kind'", p.path));
    } else if ((p.kind == "cmake" && !cmake) || (p.kind == "setuptools" && !setuptools)) {
      d_.error(path->value->pos, fmt::format("project '{}' is kind {} but has no {}", p.path, p.kind,
                                             p.kind == "cmake" ? "CMakeLists.txt" : "setup.py or pyproject.toml"));
    }
  }

  // An optional scalar `key` of `n` into `out`; reported at its value where it does not match
  // `pattern`, as "KEY 'VALUE' <what>".
  void read_matching(const YamlNode& n, const char* key, const char* pattern, const char* what, std::string& out) {
    const YamlEntry* e = n.find(key);
    if (!e) return;
    auto s = scalar(*e->value, fmt::format("'{}'", key));
    if (!s) return;
    out = *s;
    if (!matches(*s, pattern)) d_.error(e->value->pos, fmt::format("{} '{}' {}", key, *s, what));
  }

  void read_project_samples_and_smoke(const YamlNode& n, Project& p) {
    if (const YamlEntry* e = n.find("samples")) {
      // Under the matrix's folder (mounted at /src), whatever the project's kind: a PyPI project
      // has no folder of its own to hold it.
      if (auto s = scalar(*e->value, "'samples'")) {
        if (s->size() < 4 || s->compare(s->size() - 3, 3, ".py") != 0)
          d_.error(e->value->pos, fmt::format("samples '{}' must be a Python file (.py) defining samples(device)", *s));
        else if (check_repo_path(*s, e->value->pos, "samples file"))
          p.samples = *s;
      }
    }
    if (const YamlEntry* e = n.find("smoke")) {
      // An argv list, never a shell string: each item reaches the program as one argument.
      if (auto argv = scalar_list(*e->value, "'smoke'", false)) {
        if (argv->empty() || argv->front().empty() || argv->size() > 64)
          d_.error(e->value->pos, "'smoke' must be a command as a list of 1 to 64 arguments, e.g. [python3, smoke.py]");
        p.smoke = *argv;
      }
    }
  }

  // `tests:` the project's pytest suite as a path inside it (a folder or a file: python3 -m pytest
  // -q PATH), or any command as an argv list; `test_requires:` what the tests need besides
  // pytest and what the project's metadata says (requirement strings, as pip reads them).
  void read_project_tests(const YamlNode& n, Project& p) {
    if (const YamlEntry* e = n.find("tests")) {
      if (e->value->kind == Kind::scalar) {
        const std::string& path = e->value->text;
        if (!p.wheel.empty())
          d_.error(e->value->pos, fmt::format("tests '{}': a 'wheel' project has no source folder to find it in; give "
                                              "the command as a list, e.g. [python3, -m, pytest, --pyargs, mylib]", path));
        else if (!p.path.empty() ? check_repo_path(p.path == "." ? path : p.path + "/" + path, e->value->pos,
                                                   "tests folder", fs::is_directory(fs::path(base_dir_) / p.path / path))
                                 : matches(path, "^[A-Za-z0-9._][A-Za-z0-9._/-]{0,254}$") && path.find("..") == std::string::npos)
          p.tests = {"python3", "-m", "pytest", "-q", path};
        else if (p.path.empty())
          d_.error(e->value->pos, fmt::format("tests '{}' must be a relative path inside the sdist", path));
      } else if (auto argv = scalar_list(*e->value, "'tests'", false)) {
        if (argv->empty() || argv->front().empty() || argv->size() > 64)
          d_.error(e->value->pos, "'tests' must be a folder of the project (e.g. test) or a command as a list of 1 "
                                  "to 64 arguments, e.g. [python3, -m, pytest, test]");
        p.tests = *argv;
      }
    }
    if (const YamlEntry* e = n.find("test_requires")) {
      p.test_requires = requirement_list(*e, "test_requires");
      if (p.tests.empty()) d_.error(e->key_pos, "'test_requires' needs 'tests', the command they are for");
    }
    if (const YamlEntry* e = n.find("requires")) p.requires_also = requirement_list(*e, "requires");
  }

  // A list of requirement strings as pip reads them; never an option (a leading '-' would be
  // one to pip: --index-url, -e, -r), a path or a URL.
  std::vector<std::string> requirement_list(const YamlEntry& e, const char* key) {
    auto reqs = scalar_list(*e.value, fmt::format("'{}'", key), true);
    if (!reqs) return {};
    for (const auto& r : *reqs)
      if (!matches(r, "^[A-Za-z0-9][A-Za-z0-9._-]*(\\[[A-Za-z0-9._, -]*\\])?( *[<>=!~;][^\\n]{0,200})?$"))
        d_.error(e.value->pos, fmt::format("{} '{}' is not a requirement pip reads (NAME, NAME>=1.2, NAME[extra]; no "
                                           "options, paths or URLs)", key, r));
    return *reqs;
  }

  void read_where(const YamlNode& n, Cell& c) {
    const YamlEntry* e = n.find("where");
    if (!e) {
      c.where = c.runner == Runner::host ? std::vector<std::string>{"gpu"}
                                         : std::vector<std::string>{"local", "github"};
      return;
    }
    auto list = scalar_list(*e->value, "'where'", true);
    if (!list) return;
    if (list->empty()) d_.error(e->value->pos, "'where' lists no place; use local, github or gpu");
    for (const auto& place : known_places())
      if (std::find(list->begin(), list->end(), place) != list->end()) c.where.push_back(place);
    for (const auto& w : *list)
      if (std::find(known_places().begin(), known_places().end(), w) == known_places().end())
        d_.error(e->value->pos, fmt::format("unknown place '{}' in 'where' (use local, github, gpu){}", w,
                                            did_you_mean(w, known_places())));
  }

  void read_expect(const YamlNode& n, Cell& c) {
    if (!expect_kind(n, Kind::sequence, "'expect'")) return;
    for (const auto& item : n.items) {
      if (!expect_kind(*item, Kind::map, "an 'expect' entry")) continue;
      check_keys(*item, kExpectKeys, "in 'expect' entry");
      Expectation x;
      x.pos = item->pos;
      x.status = "xfail";
      if (const YamlEntry* e = require(*item, "check", item->pos))
        if (auto s = scalar(*e->value, "'check'")) {
          x.check = *s;
          if (std::find(known_checks().begin(), known_checks().end(), *s) == known_checks().end())
            d_.error(e->value->pos, fmt::format("unknown check '{}'{}", *s, did_you_mean(*s, known_checks())));
        }
      const CheckSpec* spec = find_check(x.check);
      if (const YamlEntry* e = item->find("op"))
        if (auto s = scalar(*e->value, "'op'")) {
          x.op = *s;
          // A project cell names its own ops (project.ops); other cells the matrix's. Checks that
          // also judge torchvision's ops take those as torchvision::NAME.
          const bool own = c.project && !c.project->ops.empty();
          const std::vector<std::string>& ops = own ? c.project->ops : ops_;
          const bool torchvision_op = spec && spec->torchvision_ops && matches(*s, "^torchvision::[A-Za-z_][A-Za-z0-9_]{0,63}$");
          if (!torchvision_op && std::find(ops.begin(), ops.end(), *s) == ops.end())
            d_.error(e->value->pos, fmt::format("op '{}' is not in the {} 'ops'{}", *s, own ? "project's" : "matrix's",
                                                did_you_mean(*s, ops)));
        }
      if (const YamlEntry* e = item->find("arch"))
        if (auto s = scalar(*e->value, "'arch'")) {
          x.arch = *s;
          if (std::find(c.cuda_archs.begin(), c.cuda_archs.end(), *s) == c.cuda_archs.end())
            d_.error(e->value->pos, fmt::format("arch '{}' is not among this cell's cuda_archs{}", *s,
                                                did_you_mean(*s, c.cuda_archs)));
        }
      if (const YamlEntry* e = item->find("subtest"))
        if (auto s = scalar(*e->value, "'subtest'")) {
          x.subtest = *s;
          const std::vector<std::string> none;
          const std::vector<std::string>& known = spec ? spec->subtests : none;
          if (known.empty())
            d_.error(e->value->pos, fmt::format("check '{}' reports no sub-tests; 'subtest' is for {}", x.check,
                                                fmt::join(checks_with_subtests(), ", ")));
          else if (std::find(known.begin(), known.end(), *s) == known.end())
            d_.error(e->value->pos, fmt::format("unknown sub-test '{}' of check '{}' (use {}){}", *s, x.check,
                                                fmt::join(known, ", "), did_you_mean(*s, known)));
        }
      if (const YamlEntry* e = item->find("status"))
        if (auto s = scalar(*e->value, "'status'")) {
          x.status = *s;
          if (*s != "xfail" && *s != "skip")
            d_.error(e->value->pos, fmt::format("expected status must be xfail or skip, not '{}'", *s));
        }
      if (const YamlEntry* e = require(*item, "reason", item->pos))
        if (auto s = scalar(*e->value, "'reason'")) {
          x.reason = *s;
          if (s->empty()) d_.error(e->value->pos, "'reason' is empty: say why this is expected");
        }
      c.expect.push_back(std::move(x));
    }
  }

  void read_timeouts(const YamlNode& n, Cell& c) {
    if (!expect_kind(n, Kind::map, "'timeouts'")) return;
    check_keys(n, known_steps(), "in 'timeouts'");
    for (const auto& e : n.entries) {
      auto s = scalar(*e.value, fmt::format("timeout '{}'", e.key));
      if (!s) continue;
      if (!matches(*s, "^[0-9]{1,5}$") || std::stoi(*s) == 0 || std::stoi(*s) > 86400) {
        d_.error(e.value->pos, fmt::format("timeout '{}' must be whole seconds from 1 to 86400, not '{}'", e.key, *s));
        continue;
      }
      c.timeouts.emplace_back(e.key, std::stoi(*s));
    }
  }

  // A torch/torchvision pair upstream never released together is worth a note, not an
  // error: distributions rebuild torchvision (Debian sid pairs 2.14.1 with 0.27.0).
  void pairing_note(const YamlNode& n, const Cell& c) {
    if (!is_package_version(c.torch) || !is_package_version(c.torchvision)) return;
    const auto want = upstream_torchvision_for(c.torch);
    const auto have = major_minor(c.torchvision);
    if (!want || !have || (want->major == have->major && want->minor == have->minor)) return;
    const YamlEntry* e = n.find("torchvision");
    d_.warning(e ? e->value->pos : n.pos,
               fmt::format("cell '{}': torch {} is released with torchvision {}.{}, not {}; the torchvision "
                           "check will tell whether this pair loads and registers", c.id, c.torch,
                           want->major, want->minor, c.torchvision));
  }

  void check_duplicate_ids(const Matrix& m) {
    std::map<std::string, SourcePos> first;
    for (const auto& c : m.cells) {
      if (c.id.empty()) continue;
      auto [it, inserted] = first.emplace(c.id, c.pos);
      if (!inserted)
        d_.error(c.pos, fmt::format("duplicate cell id '{}' (first at line {}, column {})", c.id,
                                    it->second.line, it->second.column));
    }
  }

  // `reference: true`: a project cell, one per library (a matrix's cells of one project label).
  void check_references(const Matrix& m) {
    std::map<std::string, const Cell*> first;
    for (const auto& c : m.cells) {
      if (!c.reference) continue;
      if (!c.project) {
        d_.error(c.pos, fmt::format("cell '{}': 'reference' marks a project's reference cell; this cell checks "
                                    "opmatrix's own kernels", c.id));
        continue;
      }
      auto [it, inserted] = first.emplace(c.project->label(), &c);
      if (!inserted)
        d_.error(c.pos, fmt::format("cell '{}': {} has a reference cell already ('{}', line {}): mark one",
                                    c.id, c.project->label(), it->second->id, it->second->pos.line));
    }
  }

  Diagnostics& d_;
  std::string base_dir_;
  std::vector<std::string> matrix_archs_;
  std::vector<std::string> ops_;
};

}  // namespace

LoadResult load_matrix_text(const std::string& text, const std::string& file_name, const std::string& base_dir) {
  Diagnostics diag(file_name);
  LoadResult result;
  if (YamlNodePtr root = parse_yaml(text, diag)) {
    Loader loader(diag, base_dir);
    auto m = loader.load(root);
    if (m && !diag.has_errors()) {
      m->file = file_name;
      result.matrix = std::move(m);
    }
  }
  result.diagnostics = diag.sorted();
  return result;
}

LoadResult load_matrix_file(const std::string& path, const std::string& base_dir) {
  LoadResult refused;
  std::optional<std::string> text =
      read_yaml_file(path, "matrix file",
                     "does it exist? `opmatrix init` writes opmatrix.yaml for the op library in this folder",
                     refused.diagnostics);
  if (!text) return refused;
  const std::string base = base_dir.empty() ? fs::path(path).parent_path().string() : base_dir;
  return load_matrix_text(*text, path, base.empty() ? "." : base);
}

}  // namespace opmatrix
