#include "cli/app.h"

#include <functional>
#include <optional>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "util/suggest.h"
#include "version.h"

namespace opmatrix {

namespace {

// --disk-budget's check, in words (CLI11's PositiveNumber says "Value 0 not in range 0.000000 to
// 1797693…"): a size in GB above 0, the room the kept images may take.
CLI::Validator gigabytes_above_zero() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double gb = 0;
        if (CLI::detail::lexical_cast(text, gb) && gb > 0) return "";
        return "a size in GB above 0, the room the images this run builds may keep (got '" + text + "')";
      },
      "GB>0");
}

const char* kMatrixHelp = "matrix file to read (default: ./opmatrix.yaml, else ./matrix.yaml)";

// A subcommand that reads a matrix file, named by --matrix (into `matrix`), as most do.
CLI::App* add_matrix_subcommand(CLI::App& app, const std::string& name, const std::string& help,
                                std::string& matrix) {
  CLI::App* sub = app.add_subcommand(name, help);
  sub->add_option("--matrix", matrix, kMatrixHelp);
  return sub;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(s->get_name());
  return names;
}

// CLI11 says which arguments were unexpected; add the flag or subcommand they look like.
std::string explain_extras(const CLI::App& app, const std::vector<std::string>& extras) {
  std::string out;
  for (const auto& word : extras) {
    const CLI::App* scope = &app;
    for (const CLI::App* s : app.get_subcommands()) scope = s;
    std::vector<std::string> candidates = option_names(*scope);
    if (scope == &app) {
      auto subs = subcommand_names(app);
      candidates.insert(candidates.end(), subs.begin(), subs.end());
    }
    const std::string bare = word.substr(0, word.find('='));
    out += fmt::format("opmatrix: error: unexpected argument '{}'{}\n", word, did_you_mean(bare, candidates));
  }
  return out;
}

int usage_error(CLI::App& app, const CLI::ParseError& e, std::ostream& out, std::ostream& err) {
  // A subcommand's --help arrives here with its own help text.
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
    app.exit(e, out, err);
    return kExitOk;
  }
  err << "opmatrix: error: " << e.what() << "\nRun 'opmatrix --help' for usage.\n";
  return kExitUsage;
}

// Every subcommand's options: filled while parsing, read by the chosen subcommand's action.
struct CommandOptions {
  InitOptions init;
  ValidateOptions validate;
  ListOptions list;
  GithubMatrixOptions gh;
  RunOptions run;
  BisectOptions bisect;
  CrossLoadOptions xload;
  AtlasOptions atlas;
  ReportOptions report;
  DiffOptions diff;
  ChecksOptions checks;
  DoctorOptions doctor;
};

// What a subcommand's callback needs: where its action goes and the streams it writes.
struct Wiring {
  std::function<int()>& action;
  std::ostream& out;
  std::ostream& err;

  // When `sub` is the subcommand parsed, the action is `command(options, out, err)`.
  template <typename Options>
  void on_parse(CLI::App* sub, int (*command)(const Options&, std::ostream&, std::ostream&), Options& options) {
    sub->callback([this, command, &options] { action = [this, command, &options] { return command(options, out, err); }; });
  }
};

void add_init(CLI::App& app, CommandOptions& o, Wiring& w) {
  auto* in = app.add_subcommand("init", "write DIR/opmatrix.yaml for the op library in DIR: its build, namespace, ops "
                                        "and import module as its files show them, three starting cells, and opmatrix_samples.py "
                                        "(sample calls of its ops) beside it");
  in->add_option("dir", o.init.dir, "the op library's folder (default: .)");
  in->add_option("--output", o.init.output, "write this file instead of DIR/opmatrix.yaml");
  in->add_option("--name", o.init.name, "start the cell ids with NAME (default: the distribution's or folder's name)");
  in->add_flag("--force", o.init.force, "overwrite an existing file");
  in->add_flag("--print", o.init.print, "print the file on stdout and write nothing");
  w.on_parse(in, init_command, o.init);
}

void add_validate(CLI::App& app, CommandOptions& o, Wiring& w) {
  auto* v = add_matrix_subcommand(app, "validate", "check matrix.yaml; errors as FILE:LINE:COL: error: MESSAGE",
                                  o.validate.matrix);
  v->add_flag("--werror", o.validate.werror, "treat warnings as errors");
  w.on_parse(v, validate_command, o.validate);
}

void add_list(CLI::App& app, CommandOptions& o, Wiring& w) {
  auto* l = add_matrix_subcommand(app, "list", "list the expanded cells", o.list.matrix);
  l->add_option("--where", o.list.where, "local | github | gpu | default (the local default run) | all")
      ->check(CLI::IsMember({"local", "github", "gpu", "default", "all"}));
  l->add_flag("--json", o.list.json, "print a JSON array of cell objects");
  w.on_parse(l, list_command, o.list);
}

void add_github_matrix(CLI::App& app, CommandOptions& o, Wiring& w) {
  auto* g = add_matrix_subcommand(app, "github-matrix",
                                  "print {\"include\":[...]} for strategy.matrix: ${{ fromJSON(...) }}", o.gh.matrix);
  g->add_option("--where", o.gh.where, "github | local | gpu | all (default: github)")
      ->check(CLI::IsMember({"github", "local", "gpu", "all"}));
  g->add_flag("--cross-load", o.gh.cross_load, "print the cross-load jobs instead: one per runtime cell, each loading "
                                               "every build");
  w.on_parse(g, github_matrix_command, o.gh);
}

// `run`'s options about where things go and how the containers run.
void add_run_places(CLI::App* r, RunOptions& run) {
  r->add_option("--results", run.results, "folder for results/<cell>.json and logs (default: ./results)");
  r->add_option("--engine", run.engine, "podman (default) | docker (GitHub runners) | host (this machine is the "
                                        "environment)")
      ->check(CLI::IsMember({"podman", "docker", "host"}));
  r->add_option("--work-dir", run.work_dir, "per-cell build folders and ccache (default: build/opmatrix)");
  r->add_option("--pip-cache", run.pip_cache, "pip cache shared by image builds (default: /var/cache/opmatrix/pip)");
  r->add_option("--extra-ca", run.extra_ca, "CA bundle for HTTPS inside image builds (default: the host's bundle)");
  r->add_option("--memory", run.memory, "memory limit of each cell container, e.g. 4g, 512m (default: 12g)")
      ->check(CLI::Validator([](std::string& s) { return valid_memory_limit(s) ? std::string() :
                                 "a size such as 512m or 4g, not '" + s + "'"; }, "SIZE"));
  r->add_option("--repo-root", run.repo_root, "the repository: mounted as /src, the matrix's containerfile and "
                                              "project paths resolve here (default: the matrix file's folder)");
}

void add_run(CLI::App& app, CommandOptions& o, Wiring& w) {
  RunOptions& run = o.run;
  auto* r = add_matrix_subcommand(app, "run", "build and test each cell in its container; writes results/<cell>.json",
                                  run.matrix);
  r->add_option("--cell", run.cells, "run this cell (repeatable); default: every cell, those that cannot run here "
                                     "reported as skipped");
  r->add_option("--where", run.where, "run the cells of one place: local | github | gpu | default | all")
      ->check(CLI::IsMember({"local", "github", "gpu", "default", "all"}));
  r->add_option("--jobs", run.jobs, "cells at once (compile jobs per cell shrink to fit the cores); default: one, "
                                    "and a second once no image is left to build")
      ->check(CLI::PositiveNumber);
  r->add_option("--build-jobs", run.build_jobs, "compile jobs per cell (default: cores / --jobs)");
  r->add_option("--disk-budget", run.disk_budget_gb, "one image at a time: its cells run, then the images this run "
                                                     "built removed while they take more than GB (images there "
                                                     "before stay); no load matrix across images")
      ->check(gigabytes_above_zero());
  r->add_option("--prefetch", run.prefetch, "images built in the background ahead of the cells, while they compile, "
                                            "as far as the disk allows (default: every one, 100; 0: none)")
      ->check(CLI::Range(0, kPrefetchEvery));
  add_run_places(r, run);
  r->add_flag("--images-only", run.images_only, "build (or find) the selected cells' images and stop");
  r->add_flag("--no-cache", run.no_cache, "run every selected cell even if its last result still stands");
  r->add_flag("--as-root", run.as_root, "run the steps as root inside containers (default: user 65534, nobody)");
  r->add_flag("--yes", run.yes, "start even when the images and build folders will not fit in the free disk");
  r->add_flag("--dry-run", run.dry_run, "say what the run would do (cells, images with sizes, build folders, "
                                        "downloads, free space, time) and start nothing: exit 0 when it fits, 1 when not");
  r->add_flag("!--no-cross-load", run.cross_load, "skip loading every cell's build in every other cell's runtime");
  w.on_parse(r, run_command, run);
}

// The results and where cells are built, for the commands that run cells by way of
// `opmatrix run` (bisect, cross-load), with each command's own words for its folders.
void add_cell_places(CLI::App* cmd, RunOptions& run, const char* results_help, const char* work_dir_help) {
  cmd->add_option("--results", run.results, results_help);
  cmd->add_option("--engine", run.engine, "podman (default) | docker | host")
      ->check(CLI::IsMember({"podman", "docker", "host"}));
  cmd->add_option("--work-dir", run.work_dir, work_dir_help);
}

void add_bisect(CLI::App& app, CommandOptions& o, Wiring& w) {
  BisectOptions& bisect = o.bisect;
  auto* bs = add_matrix_subcommand(app, "bisect",
                                   "along an ordered axis of cells (torch versions), run the fewest cells to name the "
                                   "first one where a check breaks",
                                   bisect.run.matrix);
  bs->add_option("--cells", bisect.cells, "glob(s) of the cell ids on the axis, e.g. 'chamferdist-*'")->required();
  bs->add_option("--axis", bisect.axis, "what orders the cells: torch (default) | torchvision | cuda")
      ->check(CLI::IsMember({"torch", "torchvision", "cuda"}));
  bs->add_option("--check", bisect.check, "the check that passes at the axis's start and fails at its end")->required();
  bs->add_option("--op", bisect.op, "only this op's results of the check");
  bs->add_option("--subtest", bisect.subtest, "only this sub-test's results (opcheck's test_faketensor …)");
  add_cell_places(bs, bisect.run, "folder for results/<cell>.json and logs (default: ./results)",
                  "per-cell build folders and ccache (default: build/opmatrix)");
  bs->add_option("--pip-cache", bisect.run.pip_cache, "pip cache shared by image builds");
  bs->add_option("--extra-ca", bisect.run.extra_ca, "CA bundle for HTTPS inside image builds");
  bs->add_flag("--yes", bisect.run.yes, "start each run even when its images will not fit in the free disk");
  bs->add_flag("--json", bisect.json, "print the outcome as JSON");
  w.on_parse(bs, bisect_command, bisect);
}

void add_cross_load(CLI::App& app, CommandOptions& o, Wiring& w) {
  CrossLoadOptions& xload = o.xload;
  auto* x = add_matrix_subcommand(app, "cross-load",
                                  "load the op library built in each cell in every other cell's runtime (from the "
                                  "cells' last results); writes results/_cross-load.json",
                                  xload.run.matrix);
  add_cell_places(x, xload.run, "folder of results/<cell>.json (default: ./results)",
                  "per-cell build folders (default: build/opmatrix)");
  x->add_flag("--no-cache", xload.run.no_cache, "load again even where the runtime and the builds are unchanged");
  x->add_option("--runtime", xload.runtimes, "load into this cell's runtime only (repeatable; one GitHub job each); "
                                             "the other cells' builds are still loaded");
  x->add_flag("--subjects-only", xload.subjects_only, "only copy the runtimes' upstream libraries (torchvision's "
                                                      "_C_stable.so) into their build folders, for a later job");
  x->add_option("--merge", xload.merge, "merge these _cross-load.json files of single-runtime jobs into "
                                        "RESULTS/_cross-load.json instead of loading anything")->expected(1, -1);
  w.on_parse(x, cross_load_command, xload);
}

// `opmatrix atlas run|report|validate|runtimes`: one subcommand, its action the first word.
void add_atlas(CLI::App& app, CommandOptions& o, Wiring& w) {
  AtlasOptions& atlas = o.atlas;
  atlas.run.atlas = "atlas.yaml";
  atlas.run.results = "atlas-results";
  auto* at = app.add_subcommand("atlas", "the op libraries of an atlas file (PyPI wheels) x its torch runtimes: "
                                         "validate it, run its pairs, or render the published atlas from their results "
                                         "(runtimes: its runtimes as a GitHub job matrix, one line of JSON)");
  at->add_option("action", atlas.action, "validate | run | report | runtimes")
      ->required()
      ->check(CLI::IsMember({"validate", "run", "report", "runtimes"}));
  at->add_option("--atlas", atlas.run.atlas, "atlas file to read (default: ./atlas.yaml)");
  at->add_option("--runtime", atlas.runtimes, "run, runtimes: only this runtime (repeatable; a GitHub job each)");
  at->add_option("--library", atlas.libraries, "run: only this library (repeatable)");
  at->add_option("--jobs", atlas.run.jobs, "run: pairs at once (default: 1)")->check(CLI::PositiveNumber);
  at->add_option("--disk-budget", atlas.run.disk_budget_gb, "run: one runtime at a time, removing the images this "
                                                             "run built once their pairs are done while they take "
                                                             "more than GB (images there before stay)")
      ->check(gigabytes_above_zero());
  at->add_option("--newest", atlas.newest, "run: only each library's newest N releases (default: all)")->check(CLI::Range(1, 1000));
  at->add_option("--output", atlas.output, "report: the folder its pages go to (default: docs/atlas)");
  add_run_places(at, atlas.run);
  at->get_option("--results")->description("folder of the pairs' results/<pair>.json and logs (default: ./atlas-results)");
  at->add_flag("--no-cache", atlas.run.no_cache, "run: every selected pair even if its last result still stands");
  at->add_flag("--keep-measured", atlas.run.keep_measured,
               "run: keep each pair's last result that measured it whatever changed since (opmatrix, its scripts, "
               "the image); only pairs without one run (an atlas measured over many runs and versions)")
      ->excludes("--no-cache");
  at->add_flag("--yes", atlas.run.yes, "run: start even when the images will not fit in the free disk");
  at->add_flag("--dry-run", atlas.run.dry_run, "run: say what the run would do and what it costs; start nothing");
  at->add_flag("--images-only", atlas.run.images_only, "run: build (or find) the runtimes' images and stop");
  w.on_parse(at, atlas_command, atlas);
}

void add_report(CLI::App& app, CommandOptions& o, Wiring& w) {
  auto* rp = app.add_subcommand("report", "render the compatibility report from results/*.json");
  rp->add_option("--results", o.report.results, "folder of results/<cell>.json (default: ./results)");
  rp->add_option("--format", o.report.format, "md (default) | html | json | junit")
      ->check(CLI::IsMember({"md", "html", "json", "junit"}));
  rp->add_option("-o,--output", o.report.output, "write here (atomically) instead of stdout");
  rp->add_option("--details", o.report.details, "md: link each table entry to PAGE#cell-ID, where the cells' sections "
                                                "are (default: this page; the README links to its published report)");
  w.on_parse(rp, report_command, o.report);
}

void add_diff(CLI::App& app, CommandOptions& o, Wiring& w) {
  auto* df = app.add_subcommand("diff", "compare two results sets (folders or report JSON files) cell by cell and "
                                        "check by check; exit 1 if anything that worked in BASE does not in HEAD");
  df->add_option("base", o.diff.base, "BASE: the results folder or `report --format json` file to compare against "
                                      "(e.g. main's)")->required();
  df->add_option("head", o.diff.head, "HEAD: the results folder or report JSON file of the change")->required();
  df->add_option("--format", o.diff.format, "md (default) | json")->check(CLI::IsMember({"md", "json"}));
  df->add_option("-o,--output", o.diff.output, "write here (atomically) instead of stdout");
  w.on_parse(df, diff_command, o.diff);
}

void add_checks(CLI::App& app, CommandOptions& o, Wiring& w) {
  auto* ck = app.add_subcommand("checks", "list every check opmatrix runs: its step, script, judge and the error users "
                                          "see that it stands for");
  ck->add_option("--format", o.checks.format, "text (default), json, or md (the tables docs/checks.md embeds)")
      ->check(CLI::IsMember({"text", "json", "md"}));
  ck->add_flag("--json", o.checks.json, "the same as --format json");
  w.on_parse(ck, checks_command, o.checks);
}

void add_doctor(CLI::App& app, CommandOptions& o, Wiring& w) {
  auto* d = app.add_subcommand("doctor", "inspect this environment (torch, torchvision, nvcc, GPU) and say which "
                                         "known failures apply, each with its fix; exit 1 if any applies");
  d->add_option("--python", o.doctor.python, "the Python whose torch to inspect (default: $OPMATRIX_PYTHON or python3)");
  d->add_option("--libtorch", o.doctor.libtorch, "a LibTorch folder to inspect as well (version, CUDA, C++ ABI)");
  d->add_flag("--json", o.doctor.json, "print JSON for machines");
  w.on_parse(d, doctor_command, o.doctor);
}

// The subcommands in the order `opmatrix --help` lists them.
using AddSubcommand = void (*)(CLI::App&, CommandOptions&, Wiring&);
constexpr AddSubcommand kSubcommands[] = {add_init, add_validate, add_list, add_github_matrix, add_run, add_bisect,
                                          add_cross_load, add_atlas, add_report, add_diff, add_checks, add_doctor};

// Parses `args`; the exit status of a parse that ends the command (help, version, bad usage),
// else nullopt (the chosen subcommand's action is set).
std::optional<int> parse_args(CLI::App& app, const std::vector<std::string>& args, std::ostream& out,
                              std::ostream& err) {
  std::vector<std::string> argv_storage = {"opmatrix"};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    out << kOpmatrixVersion << '\n';
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    if (!app.remaining(true).empty() && (dynamic_cast<const CLI::ExtrasError*>(&e) ||
                                         app.get_subcommands().empty())) {
      err << explain_extras(app, app.remaining(true));
      err << "Run 'opmatrix --help' for usage.\n";
      return kExitUsage;
    }
    return usage_error(app, e, out, err);
  }
  return std::nullopt;
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"opmatrix: which PyTorch x torchvision x CUDA combinations your C++/CUDA ops build, load, "
               "register and compute correctly on.\nExit status: 0 ok, 1 a checked thing failed, 2 bad usage "
               "or bad input.",
               "opmatrix"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(kOpmatrixVersion));
  std::function<int()> action;
  Wiring wiring{action, out, err};
  CommandOptions options;
  for (AddSubcommand add : kSubcommands) add(app, options, wiring);
  if (std::optional<int> ended = parse_args(app, args, out, err)) return *ended;
  return action ? action() : kExitUsage;
}

}  // namespace opmatrix
