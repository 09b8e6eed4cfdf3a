// One cell's run so far, passed to every step (checks/registry.h, StepRunner): what the cell
// is, where it runs, what earlier steps found, and the result being written. The helpers below
// are what every step does the same way: make a command, run it as a recorded step, read a
// script's JSON.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/registry.h"
#include "matrix/model.h"
#include "results/cell_result.h"
#include "run/cell_runner.h"
#include "engine/engine.h"

namespace opmatrix {

using EnvList = std::vector<std::pair<std::string, std::string>>;

// How often a running step (an image build, a compile, the tests) says what it is doing
// (docs/cli.md#run).
constexpr double kStepProgressSeconds = 10;

// What the build steps leave for the steps after them.
struct BuildState {
  std::string fetched;                       // a pypi:/wheel: project's file, as the cell sees it
  bool configured = false;
  bool built = false;
  double configure_seconds = 0;
  std::vector<std::string> archs;            // declared archs the cell's nvcc can target, CMake spelling
  std::vector<std::string> libraries;        // every built library, as the cell sees it (the load step's)
  nlohmann::json wheel;                      // build_wheel.py's report (setup.py projects)
};

struct CellContext {
  CellContext(const Matrix& m, const Cell& c, Engine& e, const RunSettings& s, const Progress& p);

  const Matrix& matrix;
  const Cell& cell;
  Engine& engine;
  const RunSettings& settings;
  const Progress& progress;
  CellPaths paths;
  std::string image;   // the image tag, once the image step has one
  BuildState build;
  // What a step leaves for a later step of its own module, by module (the torchvision step's
  // Python view for the torchvision-cpp step).
  nlohmann::json notes = nlohmann::json::object();
  CellResult result;
  // Steps that already ran in a container they share (StepSpec::shares_container): what each
  // did, taken by run_step in its turn in place of starting a container of its own.
  struct SharedRun {
    ProcessResult process;
    std::string log;
  };
  std::map<std::string, SharedRun> ran_shared;
  bool shared_container_tried = false;  // once a cell: where it failed, each step runs alone

  const Project* project() const { return cell.project ? &*cell.project : nullptr; }
  void say(const std::string& line) const;
  double timeout_of(const std::string& step) const { return step_timeout(cell, step); }
  std::string log_path(const std::string& step) const;
  std::string log_rel(const std::string& step) const { return "logs/" + cell.id + "/" + step + ".log"; }

  // A step's command with the environment every step gets.
  StepCommand command(const std::string& step, std::vector<std::string> argv, double timeout) const;
  // python.sh scripts/cell/<script> ARGS..., timed as `step`.
  StepCommand script_command(const std::string& step, const std::string& script, std::vector<std::string> args,
                             const EnvList& env = {}) const;

  // Runs a step, records it, and on failure records the diagnosis as the `check` it stands for.
  // `output_is_data`: a non-zero exit that only reports findings (judged later), so the step
  // itself passed, in the results and on the console alike.
  ProcessResult run_step(const StepCommand& cmd, const std::string& check,
                         const std::function<bool(const ProcessResult&)>& output_is_data = nullptr);
  // Runs the step's own script (no arguments) with its stdout kept, recorded as `check`.
  ProcessResult run_script_step(const StepSpec& spec, const std::string& check);
  // Runs a cell script that prints one JSON object; a failed step (or no JSON) is recorded as
  // `check` and gives null.
  nlohmann::json script_json(const std::string& step, const std::string& script, std::vector<std::string> args,
                             const std::string& check, std::string* repro = nullptr, const EnvList& env = {});
  // A step that reaches PyPI (fetch, install-plan, requirements): its script run with network and
  // the host's PyPI mirror ($OPMATRIX_PYPI_URL) as fetch_pypi.py and pip each read it; exit 1 is
  // the script reporting what it could not get (data for the judge). `repro` gets its command.
  // The step's `download_bytes` is the script's answer's, where it gives one.
  ProcessResult run_pypi_script(const StepSpec& spec, std::vector<std::string> args, std::string& repro);
  // The command as a person reruns it.
  std::string display(const StepCommand& cmd) const { return engine.display(image, cell, cmd); }
  void add(CheckResult c) { result.checks.push_back(std::move(c)); }
  void add_error(const std::string& check, const std::string& message, double seconds = 0);

  // Where the project's sources are: a path project's folder under /src, a pypi: sdist's
  // extracted copy in the build folder, a wheel's build folder (it has no sources).
  std::string project_dir_in_cell() const;
  std::string project_dir_on_host() const;
  // Where a project's build leaves what users get: a CMake build folder, or the folder its
  // wheel was installed into (on PYTHONPATH for every step after the build).
  std::string project_output() const;
  // What a setup.py build (the project's wheel, or an sdist among its requirements) is given:
  // CUDA exactly when the cell promises it, for the archs its nvcc can target, MAX_JOBS, and a
  // pip inside it that installs into the cell's Python as a user's would (PIP_BREAK_SYSTEM_PACKAGES).
  EnvList wheel_build_env() const;
  // PYTHONPATH for every step after the build: a project's wheel, or the folder where our own
  // kernels' build put libopmatrix_ops.so beside its Python module.
  EnvList project_env() const;
  // The module users import to get the cell's ops: the project's `import:`, or for our own
  // kernels opmatrix_ops (loads the library, registers the fake kernels C++ cannot express).
  std::string import_module() const;
  // The samples the behaviour checks run: a project's `samples:` file, or cases/samples.py for
  // opmatrix's own kernels; "" when a project declares none.
  std::string samples_in_cell() const;
  // A project's own command (smoke, tests) run by run_tests.py from a copy of its folder that
  // leaves out what the installed library provides, so that its import finds the built library,
  // not the sources; `junit`: where its JUnit XML goes ("" = the exit status is the result).
  StepCommand against_installed(const std::string& step, const std::vector<std::string>& argv,
                                const std::string& junit = "") const;
};

// Does `spec` run in this cell, given what the steps before it left (its `when`; an atlas pair
// runs only the steps marked for it)?
bool step_runs(const CellContext& ctx, const StepSpec& spec);

// The status a finished process gives its step.
Status status_of_process(const ProcessResult& r);

}  // namespace opmatrix
