// The subcommands of `opmatrix`. Each returns the process exit status:
// 0 ok, 1 a checked thing failed, 2 bad usage or bad input (docs/cli.md).
#pragma once

#include <iosfwd>
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include "matrix/model.h"

namespace opmatrix {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNothingToReport = 3;  // `report`: the results folder is missing or holds no results

// `text` to `out` when `output` is "" or "-", else written atomically to that file; false (the
// reason on `err`, prefixed "opmatrix COMMAND: error: ") when the file cannot be written.
bool print_or_write(const std::string& output, const std::string& text, const std::string& command,
                    std::ostream& out, std::ostream& err);
bool writes_to_stdout(const std::string& output);

// Loads and validates; prints every diagnostic to `err`. nullopt when there are errors.
std::optional<Matrix> load_matrix_or_report(const std::string& path, std::ostream& err);

// The matrix file a command reads without --matrix: ./opmatrix.yaml (what `opmatrix init`
// writes in an op library's folder) where it exists, else ./matrix.yaml (this repository's own),
// else opmatrix.yaml (the error then names the file `init` would write).
std::string default_matrix_file();

struct InitOptions {
  std::string dir = ".";  // the op library's folder
  std::string output;     // "" = DIR/opmatrix.yaml
  std::string name;       // cell id prefix; "" = the distribution's or folder's name
  bool force = false;     // overwrite an existing file
  bool print = false;     // stdout instead of a file
};
// `opmatrix init`: a starting matrix for the op library in DIR, from what its files show.
int init_command(const InitOptions& opts, std::ostream& out, std::ostream& err);

struct ValidateOptions {
  std::string matrix = default_matrix_file();
  bool werror = false;
};
int validate_command(const ValidateOptions& opts, std::ostream& out, std::ostream& err);

struct ListOptions {
  std::string matrix = default_matrix_file();
  std::string where = "all";  // local | github | gpu | default | all
  bool json = false;
};
int list_command(const ListOptions& opts, std::ostream& out, std::ostream& err);

struct GithubMatrixOptions {
  std::string matrix = default_matrix_file();
  std::string where = "github";  // github | local | gpu | all
  bool cross_load = false;        // the cross-load jobs (crossload/cross_load_jobs.h) instead of the cells
};
int github_matrix_command(const GithubMatrixOptions& opts, std::ostream& out, std::ostream& err);

// --prefetch's default and most: every image of the run ahead of its cells, as the disk allows
// (a 0.15.0 main job with one ahead waited 101 s for an image the builder could have begun
// 67 s earlier, idle while a cell ran).
constexpr int kPrefetchEvery = 100;

struct RunOptions {
  std::string matrix = default_matrix_file();
  std::vector<std::string> cells;  // empty: the default selection
  std::string where;               // empty: the default local run
  // Cells at once. 0 (--jobs not given): one, compiling on every core while the next images are
  // built beside it, and a second once no image is left to build (RunState::late_worker).
  int jobs = 0;
  // --disk-budget: the cells run one image at a time and the images the run builds are removed as
  // it goes, beyond this many GB (0: none; pipeline/image_by_image.h); the cost survey counts at
  // most this much of them at once.
  double disk_budget_gb = 0;
  int build_jobs = 0;              // compile jobs per cell; 0 = cores / jobs
  int prefetch = kPrefetchEvery;   // images built ahead of the cells while they compile; 0 = none
  std::string results = "results";
  std::string engine = "podman";
  std::string work_dir;            // default: <repo>/build/opmatrix
  std::string pip_cache;           // default: /var/cache/opmatrix/pip
  std::string extra_ca;            // default: the host's CA bundle, for podman image builds
  std::string memory;              // each container's --memory limit; default: EngineConfig's (12g)
  std::string repo_root;           // mounted as /src, paths in the matrix resolve here; default: the matrix's folder
  bool images_only = false;        // only ensure the selected cells' images (CI cache warm-up)
  bool no_cache = false;           // run even when the last result's cache key still matches
  bool keep_measured = false;      // keep a result that measured the cell even where its key changed
  bool cross_load = true;          // after >= 2 cells: every build loaded in every runtime
  bool as_root = false;            // containers: run steps as root instead of an unprivileged user
  bool yes = false;                // start even when the disk the run needs is not free (images/run_cost.h)
  bool dry_run = false;            // say what the run would do and what it costs; start nothing
  std::string atlas;               // an atlas file: its pairs are the cells (`opmatrix atlas run`)
  // Where the disk has no room for the run, asked once to free some before it gives up: true when
  // it removed something (--disk-budget: the images the run built and kept, whose cells are done).
  std::function<bool()> make_room;
};
int run_command(const RunOptions& opts, std::ostream& out, std::ostream& err);
// The selected cells in one run, as they are: what `run` does without --disk-budget, and with it
// for each image's cells (pipeline/image_by_image.h).
int run_selected_cells(const RunOptions& opts, std::ostream& out, std::ostream& err);
// A container memory limit as podman/docker take it: a whole number with an optional b/k/m/g.
bool valid_memory_limit(const std::string& size);
// `opmatrix cross-load`: the build x run load table from the cells' last results.
struct CrossLoadOptions {
  RunOptions run;                     // matrix, results, engine, work dir, no_cache
  std::vector<std::string> runtimes;  // only these runtimes (a GitHub job each); empty: all
  bool subjects_only = false;         // only copy upstream subjects into the build folders
  std::vector<std::string> merge;     // merge these single-runtime files instead of loading
};
int cross_load_command(const CrossLoadOptions& opts, std::ostream& out, std::ostream& err);
struct EngineConfig;
EngineConfig engine_config_for(const RunOptions& opts);

// `opmatrix bisect`: the first cell along an axis where a check breaks (bisect/bisect.h).
struct BisectOptions {
  RunOptions run;                  // how each cell runs (matrix, results, engine, work dir …)
  std::vector<std::string> cells;  // glob patterns of cell ids: the axis
  std::string axis = "torch";      // torch | torchvision | cuda
  std::string check, op, subtest;
  bool json = false;
};
int bisect_command(const BisectOptions& opts, std::ostream& out, std::ostream& err);

// `opmatrix atlas run|report|validate` (atlas/): the op libraries of an atlas file x its runtimes.
// An atlas run's pairs: one at a time unless --jobs says otherwise (each pair is short; its image
// is there before its pairs start).
inline RunOptions one_pair_at_a_time() {
  RunOptions o;
  o.jobs = 1;
  return o;
}

struct AtlasOptions {
  std::string action;                  // run | report | validate
  RunOptions run = one_pair_at_a_time();  // run.atlas: the file; results, engine, work dir, no_cache, dry_run ...
  std::vector<std::string> runtimes;   // only these runtimes (a GitHub job each); empty: all
  std::vector<std::string> libraries;  // only these libraries; empty: all
  int newest = 0;                      // only each library's newest N releases; 0: all
  std::string output = "docs/atlas";   // report: the folder the pages go to
};
int atlas_command(const AtlasOptions& opts, std::ostream& out, std::ostream& err);

struct ReportOptions {
  std::string results = "results";
  std::string format = "md";  // md | html | json | junit
  std::string output;         // "" or "-": stdout
  std::string details;        // md: the page the table's entries link to ("" = this one)
};
int report_command(const ReportOptions& opts, std::ostream& out, std::ostream& err);

struct DiffOptions {
  std::string base;           // a results folder, a report JSON file or one results file
  std::string head;
  std::string format = "md";  // md | json
  std::string output;         // "" or "-": stdout
};
// `opmatrix diff`: exit 1 when something that worked in BASE does not in HEAD (docs/cli.md#diff).
int diff_command(const DiffOptions& opts, std::ostream& out, std::ostream& err);

struct ChecksOptions {
  std::string format = "text";  // text | json | md
  bool json = false;            // --json: format json
};
int checks_command(const ChecksOptions& opts, std::ostream& out, std::ostream& err);

struct DoctorOptions {
  std::string python;    // "" = $OPMATRIX_PYTHON or python3
  std::string libtorch;  // a LibTorch folder to inspect too
  bool json = false;
};
int doctor_command(const DoctorOptions& opts, std::ostream& out, std::ostream& err);

// Cells selected by a `--where` word: a place, `default` (the local default set) or `all`.
bool cell_selected(const Cell& cell, const std::string& where);

}  // namespace opmatrix
