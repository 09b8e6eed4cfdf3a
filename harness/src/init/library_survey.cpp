#include "init/library_survey.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "init/cpp_registrations.h"
#include "init/python_registrations.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

NamespaceOps& namespace_entry(std::vector<NamespaceOps>& all, const std::string& ns) {
  for (auto& n : all)
    if (n.ns == ns) return n;
  all.push_back(NamespaceOps{ns, {}, {}, {}});
  return all.back();
}

void merge(const SourceRegistrations& found, const std::string& file, LibrarySurvey& s) {
  for (const auto& ns : found.namespaces) {
    NamespaceOps& entry = namespace_entry(s.namespaces, ns);
    if (std::find(entry.files.begin(), entry.files.end(), file) == entry.files.end()) entry.files.push_back(file);
  }
  for (const auto& op : found.ops) {
    NamespaceOps& entry = namespace_entry(s.namespaces, op.ns);
    if (std::find(entry.ops.begin(), entry.ops.end(), op.name) == entry.ops.end()) entry.ops.push_back(op.name);
    entry.schemas.push_back(op.schema.empty() ? op.name : op.schema);
  }
  s.unread_defs += found.unread_defs;
  s.pybind11_module = s.pybind11_module || found.pybind11_module;
}

// TORCH_LIBRARY(TORCH_EXTENSION_NAME, m): the namespace is the extension module's last name,
// which setup.py passes as -DTORCH_EXTENSION_NAME=...; tell it when there is one extension.
void resolve_extension_name(LibrarySurvey& s, const SetupFacts& facts) {
  auto it = std::find_if(s.namespaces.begin(), s.namespaces.end(),
                         [](const NamespaceOps& n) { return n.ns == "TORCH_EXTENSION_NAME"; });
  if (it == s.namespaces.end()) return;
  if (facts.extensions.size() == 1) {
    const std::string& ext = facts.extensions[0];
    const std::string ns = ext.substr(ext.rfind('.') + 1);
    s.notes.push_back(fmt::format("TORCH_LIBRARY(TORCH_EXTENSION_NAME, ...) registers in namespace {}, the name of "
                                  "the extension {}", ns, ext));
    NamespaceOps resolved = *it;
    s.namespaces.erase(it);
    NamespaceOps& into = namespace_entry(s.namespaces, ns);
    for (const auto& op : resolved.ops)
      if (std::find(into.ops.begin(), into.ops.end(), op) == into.ops.end()) into.ops.push_back(op);
    into.schemas.insert(into.schemas.end(), resolved.schemas.begin(), resolved.schemas.end());
    into.files.insert(into.files.end(), resolved.files.begin(), resolved.files.end());
    return;
  }
  s.notes.push_back(fmt::format("TORCH_LIBRARY(TORCH_EXTENSION_NAME, ...) in {} registers {} op(s) in a namespace "
                                "named after the extension module, which init could not tell; set namespace: by hand",
                                fmt::join(it->files, ", "), it->ops.size()));
  s.namespaces.erase(it);
}

}  // namespace

LibrarySurvey survey_library(const fs::path& dir, const SourceLimits& limits) {
  LibrarySurvey s;
  s.dir = dir;
  s.build = detect_build_kind(dir);
  if (s.build.kind.empty()) return s;

  const SourceFiles files = list_source_files(dir, limits);
  s.truncated = files.truncated;
  s.skipped_large = files.skipped_large;
  for (const auto& f : files.cpp) merge(find_cpp_registrations(read_text_file(f.string())), f.lexically_relative(dir).string(), s);
  for (const auto& f : files.python)
    merge(find_python_registrations(read_text_file(f.string())), f.lexically_relative(dir).string(), s);
  s.files_read = files.cpp.size() + files.python.size();

  const SetupFacts facts = read_setup_facts(read_text_file((dir / "setup.py").string()),
                                            read_text_file((dir / "setup.cfg").string()),
                                            read_text_file((dir / "pyproject.toml").string()));
  resolve_extension_name(s, facts);
  std::stable_sort(s.namespaces.begin(), s.namespaces.end(),
                   [](const NamespaceOps& a, const NamespaceOps& b) { return a.ops.size() > b.ops.size(); });
  if (s.build.kind == "setuptools") {
    s.dist_name = facts.dist_name;
    s.import = find_import_module(dir, facts, s.pybind11_only());
  }
  s.smoke_py = fs::is_regular_file(dir / "smoke.py");
  std::vector<std::string> own = facts.packages;
  if (!s.import.module.empty()) own.push_back(s.import.module.substr(0, s.import.module.find('.')));
  for (const auto& ext : facts.extensions) own.push_back(ext.substr(0, ext.find('.')));
  s.tests = find_test_suite(dir, own);
  return s;
}

}  // namespace opmatrix
