// What one cell came to: results/<cell>.json, schema in docs/results.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/status.h"

namespace opmatrix {

constexpr int kResultsSchemaVersion = 1;

// A failure explained for a person: what happened, how to fix it, how to see it again.
struct Diagnosis {
  std::string kind;     // compile_error, link_error, undefined_symbol, cxx_standard, unsupported_arch,
                        // no_cuda_torch, not_registered, numerical_mismatch, crash, timeout, …
  std::string summary;  // plain words
  std::string fix;
  std::string repro;    // one command line
  std::string evidence; // the log line(s) it is based on
};

struct CheckResult {
  std::string op;  // empty: the check is about the whole cell (versions, build)
  std::string check;
  std::string arch;  // for the arch check: the CUDA arch, e.g. "9.0"
  Status status = Status::pass;
  std::string message;
  std::string expected_reason;  // set when an `expect` entry matched
  double seconds = 0;
  std::vector<std::string> tests;  // the test cases behind it
  std::optional<Diagnosis> diagnosis;
  std::string subtest = {};  // a part of a check reported on its own: opcheck's test_schema, test_faketensor, …
  std::string sample = {};   // the sample input it ran on, for a person: "nms(f32[8,4], f32[8], 0.5)"
  // registration: the dispatch keys the op has kernels for here ("CPU", "Meta", ...), the
  // measured kernel set a reference cell's promise is inferred from (checks/load/reference_promises.h)
  std::vector<std::string> kernels = {};
  std::vector<std::string> missing_kernels = {};  // registration: the promised keys it lacks here
};

// Results about torchvision's own ops ("torchvision::nms"), judged in every cell beside the
// cell's library: another library's, never covered by that library's rules or `expect` entries.
inline bool is_torchvision_op(const std::string& op) { return op.rfind("torchvision::", 0) == 0; }

struct CellResult;
// The op library a cell's results are about: its project's label ("boxops (examples/boxops)",
// "pypi torch-scatter==2.1.2"); "" for opmatrix's own kernels.
std::string subject_of(const CellResult& r);

struct StepResult {
  std::string name;  // image, probe, configure, build, test
  Status status = Status::pass;
  double seconds = 0;
  int exit_code = 0;
  int signal = 0;
  std::string log;      // path relative to the results folder
  std::string command;  // for a person: what ran
  // The image step of a cell whose image another thread acquired (the run's look-ahead, or a
  // cell of the same image): how long the cell waited for it, while `seconds` is the build's.
  std::optional<double> waited_seconds;
  // A step with network (fetch, requirements): the bytes a run with an empty cache downloads in
  // it, whether this run had them cached or not (the dry run of a later run counts them).
  std::optional<double> download_bytes = std::nullopt;
};

struct CellResult {
  int schema_version = kResultsSchemaVersion;
  std::string harness_version;
  nlohmann::json cell;  // the cell as declared (list --json form)
  std::string engine;
  std::string image;
  std::string started_at;  // ISO 8601 UTC
  double seconds = 0;
  nlohmann::json versions = nlohmann::json::object();  // what the probe found
  std::vector<StepResult> steps;
  std::vector<CheckResult> checks;
  Status status = Status::pass;     // the cell's verdict, expectations applied
  bool meets_expectations = true;   // false: the run should exit 1
  std::vector<Diagnosis> diagnoses; // cell-level (build, versions, infrastructure)
  std::string cache_key;
  nlohmann::json cache_key_parts = nlohmann::json::object();  // run/cache_key.h: what the key is made of
  bool cached = false;
  std::string image_id = {};  // the engine's id of `image` (hex): which build of the tag ran
  // The commit of the repository the matrix lives in, "+dirty" with uncommitted changes; a
  // cached run fills it where an older result lacks it (the cache key proves the same inputs).
  std::string commit = {};
};

nlohmann::json to_json(const CellResult& r);
// The cell's status (the worst of its checks; error with none) and whether it meets its
// expectations, from its checks as they stand: after its expect entries, and again after a
// reader's rules changed a check (its library's reference cell).
void settle_status(CellResult& r);
// Throws std::runtime_error with a plain message when the JSON is not a results file this
// harness can read (wrong type, newer schema).
CellResult cell_result_from_json(const nlohmann::json& j);

}  // namespace opmatrix
