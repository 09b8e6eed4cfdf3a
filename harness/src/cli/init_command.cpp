#include <filesystem>
#include <ostream>
#include <regex>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "init/init_matrix.h"
#include "init/init_samples.h"
#include "init/known_cells.h"
#include "init/library_survey.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

constexpr std::size_t kOpsNamed = 10;

int fail(std::ostream& err, const std::string& message) {
  err << "opmatrix init: error: " << message << "\n";
  return kExitUsage;
}

std::string ops_summary(const NamespaceOps& ns) {
  std::vector<std::string> named(ns.ops.begin(), ns.ops.begin() + std::min(ns.ops.size(), kOpsNamed));
  if (ns.ops.size() > kOpsNamed) named.push_back(fmt::format("... {} more", ns.ops.size() - kOpsNamed));
  return fmt::format("{}, {} op{}{}", ns.ns, ns.ops.size(), ns.ops.size() == 1 ? "" : "s",
                     ns.ops.empty() ? "" : fmt::format(" ({})", fmt::join(named, ", ")));
}

void print_findings(std::ostream& to, const LibrarySurvey& s, const std::string& prefix) {
  to << fmt::format("opmatrix init: {}\n", s.dir.string());
  to << fmt::format("  build:     {} ({})\n", s.build.kind, s.build.reason);
  if (const NamespaceOps* ns = s.main_namespace()) {
    to << fmt::format("  namespace: {}\n", ops_summary(*ns));
    for (std::size_t i = 1; i < s.namespaces.size(); ++i)
      to << fmt::format("  also:      {} (not checked; listed in a comment)\n", ops_summary(s.namespaces[i]));
  } else if (s.pybind11_only()) {
    to << "  namespace: none: pybind11 only (PYBIND11_MODULE, no TORCH_LIBRARY); the registration check will say "
          "it registers no dispatcher op\n";
  } else {
    to << "  namespace: none found (no TORCH_LIBRARY, RegisterOperators or torch.library definition)\n";
  }
  if (s.build.kind == "setuptools")
    to << fmt::format("  import:    {} ({})\n", s.import.module.empty() ? "none" : s.import.module, s.import.reason);
  std::vector<std::string> ids;
  for (const auto& c : known_cells()) ids.push_back(known_cell_id(prefix, c));
  to << fmt::format("  cells:     {}\n", fmt::join(ids, ", "));
  to << fmt::format("  read:      {} source file{}{}\n", s.files_read, s.files_read == 1 ? "" : "s",
                    s.truncated ? " (stopped at the limit: the rest was not read)" : "");
  for (const auto& note : s.notes) to << "  note:      " << note << "\n";
}

// Where the library is, seen from the matrix file: the matrix's project path. It cannot
// leave the matrix's folder (opmatrix mounts only that folder in the cells).
std::string project_path(const fs::path& dir, const fs::path& output, std::string& problem) {
  std::error_code ec;
  const fs::path lib = fs::weakly_canonical(fs::absolute(dir), ec);
  const fs::path home = fs::weakly_canonical(fs::absolute(output).parent_path(), ec);
  const fs::path rel = lib.lexically_relative(home);
  if (rel.empty() || *rel.begin() == "..") {
    problem = fmt::format("--output '{}' is not in {} or a folder above it: a matrix's project path is relative to "
                          "the matrix file's folder and cannot leave it", output.string(), dir.string());
    return "";
  }
  static const std::regex allowed("^[A-Za-z0-9._/-]{1,255}$");
  if (!std::regex_match(rel.string(), allowed))
    problem = fmt::format("the path from the matrix file to {} is '{}', and a matrix's project path may hold only "
                          "letters, digits, '.', '_', '/' and '-'", dir.string(), rel.string());
  return rel.string();
}

}  // namespace

int init_command(const InitOptions& opts, std::ostream& out, std::ostream& err) {
  const fs::path dir = opts.dir.empty() ? fs::path(".") : fs::path(opts.dir);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return fail(err, fmt::format("DIR '{}' is not a folder", dir.string()));
  static const std::regex safe_prefix("^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$");
  if (!opts.name.empty() && !std::regex_match(opts.name, safe_prefix))
    return fail(err, fmt::format("--name '{}' cannot start a cell id: use up to 60 letters, digits, '.', '_' and "
                                 "'-', starting with a letter or digit", opts.name));
  const fs::path output = opts.output.empty() ? (dir / "opmatrix.yaml").lexically_normal() : fs::path(opts.output);
  if (fs::is_directory(output, ec)) return fail(err, fmt::format("--output '{}' is a folder; name a file", output.string()));
  std::string problem;
  const std::string path = project_path(dir, output, problem);
  if (!problem.empty()) return fail(err, problem);

  const LibrarySurvey survey = survey_library(dir);
  if (survey.build.kind.empty()) return fail(err, survey.build.error);
  const std::string folder_name = fs::weakly_canonical(fs::absolute(dir), ec).filename().string();
  const std::string prefix =
      !opts.name.empty() ? opts.name : id_prefix_for(survey.dist_name.empty() ? folder_name : survey.dist_name);
  const std::string samples = render_init_samples(survey);
  const fs::path samples_path = output.parent_path() / kInitSamplesFile;
  const std::string text =
      render_init_matrix(survey, {prefix, path, output.filename().string(), samples.empty() ? "" : kInitSamplesFile});

  if (opts.print) {
    out << text;
    print_findings(err, survey, prefix);
    return kExitOk;
  }
  if (fs::exists(output, ec) && !opts.force)
    return fail(err, fmt::format("{} already exists; --force overwrites it, --output FILE writes elsewhere, --print "
                                 "shows what init would write", output.string()));
  // A samples file the user has already filled in is theirs: kept unless --force.
  const bool keep_samples = samples.empty() || (fs::exists(samples_path, ec) && !opts.force);
  try {
    if (!keep_samples) write_file_atomically(samples_path.string(), samples);
    write_file_atomically(output.string(), text);
  } catch (const std::exception& e) {
    return fail(err, e.what());
  }
  print_findings(out, survey, prefix);
  if (!samples.empty())
    out << fmt::format("  samples:   {} ({})\n", samples_path.string(),
                       keep_samples ? "already there: kept" : "written: give its tensors the shapes the ops need");
  // In the library's own folder the commands need no --matrix (default_matrix_file).
  const std::string flag = output == "opmatrix.yaml" ? "" : " --matrix " + output.string();
  out << fmt::format("wrote {}. Next:\n  opmatrix validate{}\n  opmatrix run{}\n", output.string(), flag, flag);
  return kExitOk;
}

}  // namespace opmatrix
