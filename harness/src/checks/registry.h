// The check registry: every step a cell runs and every check opmatrix reports, declared once,
// by the check's own module (checks/<check>/), which registers itself at its foot. The cell
// runner's step sequence, the matrix validator's check and step names, the cache's "never
// reuse" rule, the report's columns, `opmatrix checks` and the docs tables all iterate this
// registry and name no check, so a check that nothing produces cannot exist.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace opmatrix {

// Which cells run a step, and after what.
enum class StepWhen {
  every_cell,       // every cell that has an image
  cuda_cell,        // cells that promise CUDA
  built,            // after a successful build (own kernels or a project)
  built_cuda,       // after a successful build, in a CUDA cell
  own_kernels,      // opmatrix's kernels/ + cases/, after a successful build
  project_smoke,    // a project with a `smoke:` command, after a successful build
  project_tests,    // a project with a `tests:` command, after a successful build
  project,          // every project cell (not opmatrix's own kernels)
  pypi_project,     // a project that comes from PyPI (`pypi:` sdist or `wheel:`)
  atlas_pair,       // an atlas pair only (atlas/atlas_file.h)
};

struct CellContext;  // checks/cell_context.h: one cell's run so far
struct StepSpec;
// Runs the step in a cell; false: it failed (a failed `ends_cell` step ends the cell).
using StepRunner = std::function<bool(CellContext&, const StepSpec&)>;

struct StepSpec {
  std::string name;
  std::string script;   // scripts/cell/<script> it runs, "" for a command
  std::string command;  // what runs, for a person ("cmake --build", "nvcc --list-gpu-arch")
  double timeout_s;     // default; a cell's `timeouts: {step: seconds}` overrides it
  StepWhen when;
  std::string does;     // one sentence
  bool ends_cell = false;  // its failure ends the cell (nothing after it can run)
  StepRunner run = {};     // set by the module that registers the step
  // It runs in an atlas pair too (atlas/atlas_file.h): what a wheel's users meet when they pip
  // install it next to a torch (fetch, install, load, its metadata and ABI), not the checks of a
  // build or of our kernels.
  bool in_atlas = false;
  // It only reads files the build left (a wheel's metadata, a library's symbols) and leaves no
  // state a later step could meet: the cell's steps with this flag run in one container, each as
  // its own process with its own timeout and log (scripts/cell/run_steps.py), which saves a
  // container start per step (checks/script/script_step.cpp).
  bool shares_container = false;
};

// What one check result is about.
enum class CheckPer { cell, op, arch, library };

// How a result of the check that is not a pass counts in a cell's verdict (report/verdict.h),
// expected or not: whether matrix.yaml declared it is a separate question (the run's gate).
enum class Weighs {
  breaks,  // the ops do not work for a user of this cell: "✘ broken", with the reason
  limits,  // they work, but not on one arch or not under one of PyTorch's tools: "◐ works with limits", named
};

struct ReportCells {
  std::string label;                         // "nvcc", "opcheck"
  std::string caption;                       // "can its nvcc target it (nvcc --list-gpu-arch)"
  std::vector<std::string> subtest_labels;   // "schema", "autograd registration", ...
  std::string torchvision_caption = {};      // for torchvision's own ops: "under torch.library.opcheck"
};

struct CheckSpec {
  std::string name;
  std::vector<std::string> steps;  // the steps whose output it is judged from, first = main
  std::string judge;               // the harness function that turns that output into results
  CheckPer per;
  std::string catches;             // one sentence: what it catches
  std::string user_error;          // the upstream error text users see when it fails
  // Diagnosis kinds (besides the steps' own: crash, timeout, disk_full) that say the
  // infrastructure broke, not the op: a cached result holding one is never reused.
  std::vector<std::string> infrastructure_kinds;
  bool project_column = false;     // a column of the report's "Other op libraries" table
  bool arch_column = false;        // a symbol in each cell of the report's arch table
  // Parts it reports one by one (CheckResult::subtest), which an `expect` entry may name.
  std::vector<std::string> subtests = {};
  // It also judges torchvision's own ops, reported as "torchvision::NAME" (an `expect` op may name them).
  bool torchvision_ops = false;
  bool behaviour_column = false;   // a symbol in each cell of the report's behaviour table
  Weighs weighs = Weighs::breaks;
  // Set for checks that need a GPU to execute: what a skip of it means in a cell that promises
  // CUDA (a limit the verdict names, never a pass). Elsewhere a skip means "does not apply".
  std::string unexecuted = {};
  // How the report shows it, where it is a column (arch / behaviour tables): the word of the
  // legend, the phrase of the caption, and a word per sub-test.
  ReportCells report = {};
  // Diagnosis kinds of its results that mean the op returned a WRONG result (compiled output !=
  // eager, a fake size != the real one): such a result breaks the cell whatever `weighs` says;
  // only "could not run / trace" outcomes may be limits.
  std::vector<std::string> wrong_result_kinds = {};
  // Its sub-tests that run an op's fake kernel ("*": the whole check), whose outcome decides the
  // op's `meta` verdict where they ran (behaviour over presence: checks/load/load_rules.cpp).
  std::vector<std::string> fake_kernel_subtests = {};
};

// A rule over one cell's results once every step has run, before its expectations: where one
// result explains others (the library does not load, so its ops cannot be judged) or outranks
// them (what an op does on fake tensors over whether a Meta kernel is registered), the module
// that owns that judgement rewrites them, so every red names its true cause once.
struct CellRule {
  std::string name;  // what it decides, for people
  std::function<void(CellContext&)> apply;
};

// A check that is its own step: an in-cell script printing {"checks": [...]} in the form
// checks/script/script_judge.h reads. Declaring one is one module (checks/script/*.cpp).
struct ScriptCheck {
  StepSpec step;
  CheckSpec check;
};

// A step that runs in an atlas pair too (StepSpec::in_atlas), as its module registers it:
// register_step(30, atlas_step({"fetch", ...})).
inline StepSpec atlas_step(StepSpec step) {
  step.in_atlas = true;
  return step;
}

// Registration, from each module's foot (static initialisation). `order` places a step in the
// run sequence and a check among the report's columns and the docs' rows, whatever the order
// in which the modules' objects are initialised.
void register_step(double order, StepSpec step);
void register_check(double order, CheckSpec check);
void register_cell_rule(double order, CellRule rule);
// A script check with its step's runner set (checks/script/script_step.h registers them).
void add_script_check(double order, ScriptCheck sc);

// In run order.
const std::vector<StepSpec>& step_registry();
const std::vector<CheckSpec>& check_registry();
const std::vector<ScriptCheck>& script_check_registry();
const std::vector<CellRule>& cell_rule_registry();

// The one rule by which a dispatch key counts as served, for our kernels (cases/common/
// dispatch.cpp) and any project (scripts/cell/dispatcher.py) alike, in words.
std::string registration_rule();

const StepSpec* find_step(const std::string& name);
const CheckSpec* find_check(const std::string& name);
std::vector<std::string> step_names();
std::vector<std::string> check_names();

// Diagnosis kinds every step can end in that say nothing about the op.
const std::vector<std::string>& step_infrastructure_kinds();
// Is a result of `check` with a diagnosis of `kind` about the infrastructure (never cached)?
bool is_infrastructure(const std::string& check, const std::string& kind);

// The checks shown as columns of the projects table / symbols of the arch table, in order.
std::vector<std::string> project_columns();
std::vector<std::string> behaviour_columns();
// The checks whose results name a sub-test (CheckSpec::subtests).
std::vector<std::string> checks_with_subtests();
std::vector<std::string> arch_columns();

const char* to_string(StepWhen when);
const char* to_string(CheckPer per);
const char* to_string(Weighs w);

// `opmatrix checks`: the registry as JSON, as a terminal table, and as the Markdown tables
// the docs embed (docs/checks.md, kept equal by a unit test).
nlohmann::json registry_json();
std::string registry_text();
std::string checks_markdown();
std::string steps_markdown();

}  // namespace opmatrix
