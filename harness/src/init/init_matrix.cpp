#include "init/init_matrix.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "init/known_cells.h"

namespace opmatrix {

namespace {

constexpr std::size_t kSchemasShown = 40;  // a long list helps nobody; the code has the rest
constexpr std::size_t kCommentWidth = 100;

// Found text (schemas, file names) goes into comments: one line each, whatever it holds.
std::string one_line(const std::string& s, std::size_t max = 160) {
  std::string out;
  for (char c : s) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
  if (out.size() > max) out = out.substr(0, max - 3) + "...";
  return out;
}

// `text` as comment lines: `indent`, "# ", `inner`, then the words, wrapped.
std::string comment(const std::string& text, const std::string& indent = "", const std::string& inner = "") {
  std::istringstream words(one_line(text, text.size() + 1));
  const std::string lead = indent + "# " + inner;
  std::string out, line, word;
  while (words >> word) {
    if (!line.empty() && lead.size() + line.size() + 1 + word.size() > kCommentWidth) {
      out += lead + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += lead + line + "\n";
  return out;
}

// `indent` + "key: value", with `note` after it when it fits on the line, else above it.
std::string keyed(const std::string& indent, const std::string& key_value, const std::string& note) {
  const std::string line = indent + key_value;
  if (note.empty()) return line + "\n";
  const std::string text = one_line(note);
  if (line.size() + 3 + text.size() <= kCommentWidth) return line + "  # " + text + "\n";
  return comment(note, indent) + line + "\n";
}

// A scalar as YAML reads it back unchanged: plain when it is a simple word, else double-quoted.
std::string scalar(const std::string& s) {
  static const std::regex plain(R"(^[A-Za-z_][A-Za-z0-9_./-]*$)");
  static const std::regex keyword(R"(^(true|false|yes|no|on|off|null|y|n)$)", std::regex::icase);
  if (s == "." || (std::regex_match(s, plain) && !std::regex_match(s, keyword))) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// [a, b, c] at `column`, wrapped under its first item when it outgrows the line (flow
// sequences may span lines when the continuation is indented deeper than their key).
std::string flow_list(const std::vector<std::string>& items, std::size_t column) {
  if (items.empty()) return "[]";
  std::string out = "[";
  std::size_t width = column + 1;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string piece = scalar(items[i]) + (i + 1 < items.size() ? "," : "]");
    if (i > 0 && width + 1 + piece.size() > kCommentWidth) {
      out += "\n" + std::string(column + 1, ' ');
      width = column + 1;
    } else if (i > 0) {
      out += ' ';
      ++width;
    }
    out += piece;
    width += piece.size();
  }
  return out;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string header(const InitMatrixOptions& o) {
  return comment(fmt::format("{}: the PyTorch x torchvision x CUDA combinations (cells) opmatrix checks this op "
                             "library on. Each cell builds the library in its own container against one torch, "
                             "loads it, checks its ops' kernels (CPU, CUDA, Meta) and runs its smoke command.",
                             o.file_name)) +
         comment("Written by `opmatrix init` from the library's files; edit it freely (schema: opmatrix's "
                 "docs/matrix.md and docs/projects.md). Next:") +
         fmt::format("#   opmatrix validate --matrix {}\n#   opmatrix run --matrix {}\n", o.file_name, o.file_name);
}

std::string findings(const LibrarySurvey& s) {
  std::string out = comment(fmt::format("What init found in {} ({}{}):", s.build.kind == "cmake" ? "the sources" : "the sources and setup files",
                                        plural(s.files_read, "file read", "files read"),
                                        s.truncated ? ", stopped at its limit: the rest of the folder was not read" : ""));
  if (const NamespaceOps* ns = s.main_namespace()) {
    out += comment(fmt::format("namespace {}: {}, registered in {}", ns->ns, plural(ns->ops.size(), "op", "ops"),
                               fmt::join(ns->files, ", ")), "", "  ");
    for (std::size_t i = 0; i < ns->schemas.size() && i < kSchemasShown; ++i)
      out += "#     " + one_line(ns->schemas[i]) + "\n";
    if (ns->schemas.size() > kSchemasShown) out += fmt::format("#     ... and {} more\n", ns->schemas.size() - kSchemasShown);
    if (s.namespaces.size() > 1) {
      out += comment("other namespaces, not checked here (a second matrix, or cells with their own project, "
                     "can check them):", "", "  ");
      for (std::size_t i = 1; i < s.namespaces.size(); ++i)
        out += comment(fmt::format("{}: {} ({})", s.namespaces[i].ns, plural(s.namespaces[i].ops.size(), "op", "ops"),
                                   fmt::join(s.namespaces[i].files, ", ")), "", "    ");
    }
  } else if (s.pybind11_only()) {
    out += comment("no dispatcher namespace: a pybind11-only extension (PYBIND11_MODULE, no TORCH_LIBRARY), so "
                   "torch.ops knows none of its functions. opmatrix reports its registration as \"not a "
                   "dispatcher op library\" and checks that it builds, loads and imports, and its smoke command.", "", "  ");
  } else {
    out += comment("no dispatcher namespace: no TORCH_LIBRARY, RegisterOperators or torch.library definition "
                   "in the sources. If the ops register in one, set namespace: below.", "", "  ");
  }
  if (s.unread_defs > 0)
    out += comment(fmt::format("{} def(...) with a schema computed at run time: not in ops below (ops: left out "
                               "checks every op of the namespace)", s.unread_defs), "", "  ");
  if (s.skipped_large > 0)
    out += comment(fmt::format("{} skipped: larger than a source file should be", plural(s.skipped_large, "file", "files")), "", "  ");
  for (const auto& note : s.notes) out += comment(note, "", "  ");
  return out;
}

// `tests:` where the library has a test folder, with what its files import that a cell may lack.
std::string tests_keys(const TestSuite& t, const std::string& in) {
  if (t.folder.empty())
    return comment("tests: its own test folder (run with pytest against the installed library in every cell), "
                   "e.g. tests: test", in);
  std::string out = keyed(in, "tests: " + scalar(t.folder),
                          fmt::format("its pytest suite ({} test file{}), run in every cell against the installed "
                                      "library, test by test; pytest and its metadata's test extra come with it",
                                      t.files, t.files == 1 ? "" : "s"));
  if (!t.requirement_files.empty())
    out += comment(fmt::format("{} {} read too", fmt::join(t.requirement_files, ", "),
                               t.requirement_files.size() == 1 ? "is" : "are"), in);
  if (t.requires.empty()) return out;
  std::vector<std::string> names, why;
  for (const auto& r : t.requires) {
    names.push_back(r.requirement);
    why.push_back(r.why);
  }
  return out + keyed(in, "test_requires: " + flow_list(names, in.size() + 15), fmt::format("{}", fmt::join(why, "; ")));
}

std::string project(const LibrarySurvey& s, const InitMatrixOptions& o) {
  const std::string in = "    ";
  std::string out = "defaults:\n  project:\n";
  out += keyed(in, "path: " + scalar(o.project_path),
               o.project_path == "." ? "the folder of this file" : "relative to the folder of this file");
  out += keyed(in, "kind: " + s.build.kind, s.build.reason);
  if (const NamespaceOps* ns = s.main_namespace()) {
    out += keyed(in, "namespace: " + scalar(ns->ns), "");
    if (!ns->ops.empty()) out += keyed(in, "ops: " + flow_list(ns->ops, in.size() + 5), "");
  }
  if (s.build.kind == "setuptools") {
    if (!s.import.module.empty())
      out += keyed(in, "import: " + scalar(s.import.module), s.import.reason);
    else
      out += comment(fmt::format("import: left out ({}); set it to the module users import, if any", s.import.reason),
                     in);
  }
  if (!o.samples_file.empty())
    out += keyed(in, "samples: " + scalar(o.samples_file), "sample inputs of the ops, for opcheck, compile, export and "
                                                            "fake-device: give its tensors the shapes the ops need");
  if (s.smoke_py) out += keyed(in, "smoke: [python3, smoke.py]", "");
  else
    out += comment("smoke: a command (argv list, run from the project folder) that exercises the ops, e.g. "
                   "[python3, smoke.py]", in);
  out += tests_keys(s.tests, in);
  return out;
}

std::string cells(const InitMatrixOptions& o) {
  std::string out = "cells:\n";
  for (const KnownCell& c : known_cells()) {
    out += comment(c.why, "  ");
    out += fmt::format("  - id: {}\n", scalar(known_cell_id(o.id_prefix, c)));
    out += fmt::format("    torch: \"{}\"\n    torchvision: \"{}\"\n", c.torch, c.torchvision);
    out += fmt::format("    cuda: {}\n", c.cuda == "none" ? "none" : "\"" + c.cuda + "\"");
    out += fmt::format("    image: {}   # {}\n", c.image, c.image_note);
    out += "\n";
  }
  out.pop_back();
  return out;
}

}  // namespace

std::string render_init_matrix(const LibrarySurvey& survey, const InitMatrixOptions& opts) {
  return header(opts) + "version: 1\n\n" +
         comment("The GPU archs the CUDA cells build for: few archs keep a build on a 2-core machine short. Add "
                 "the ones your users have (\"8.6\", \"8.9\", \"10.0\", \"12.0\", ...) once these pass.") +
         "cuda_archs: [\"8.0\", \"9.0\"]\n\n" + findings(survey) + project(survey, opts) + "\n" + cells(opts);
}

std::string id_prefix_for(const std::string& name) {
  std::string out;
  for (char c : name) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool keep = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9');
    if (keep) out += l;
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out.size() > 40) out.resize(40);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "lib" : out;
}

}  // namespace opmatrix
