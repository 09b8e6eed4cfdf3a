#include "crossload/cross_load.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "results/cell_result.h"
#include "crossload/abi_surfaces.h"
#include "checks/load/load_judge.h"
#include "crossload/load_prediction.h"
#include "run/cache_key.h"
#include "util/atomic_write.h"
#include "util/clock.h"
#include "util/hash.h"
#include "version.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

// The two builds of our kernels a cell can leave: the ATen library, and the stable-ABI one
// (docs/stable-abi.md) where the cell's stable-abi check says it built.
constexpr const char* kLibrary = "kernels/libopmatrix_ops.so";
constexpr const char* kStableLibrary = "kernels/libopmatrix_ops_stable.so";
// Runtimes loaded at once, at most (fewer where the machine has fewer cores): each holds a
// container with torch imported, 1-2 GB.
constexpr std::size_t kRuntimesAtOnce = 4;

struct Side {
  const Cell* cell;
  CellResult result;
  std::string library;  // host path (builds only)
  std::string library_hash;
  std::string abi = "aten";  // aten | stable
  std::string target;        // stable: the torch version it targets (major.minor); "" unknown
  std::string ns = "opmatrix";
  std::string ops;           // comma-separated; empty: the matrix's
};

// torchvision's own C++ ops, for its library as a subject.
constexpr const char* kTorchvisionOps = "nms,roi_align,roi_pool,ps_roi_align,ps_roi_pool,deform_conv2d";

bool has_check(const CellResult& r, const std::string& check, bool must_pass) {
  for (const auto& c : r.checks)
    if (c.check == check && c.op.empty() && (!must_pass || c.status == Status::pass)) return true;
  return false;
}

// The stable build's target, from the stable-abi check ("... for target 2.10"); empty when the
// cell did not build one.
std::string stable_target_of(const CellResult& r) {
  for (const auto& c : r.checks) {
    if (c.check != "stable-abi" || c.subtest != "build" || c.status != Status::pass) continue;
    const auto at = c.message.find("for target ");
    if (at == std::string::npos) continue;
    const auto from = at + std::string("for target ").size();
    return c.message.substr(from, c.message.find_first_of(" ;,", from) - from);
  }
  return "";
}

// "2.10.0+cu128" -> {2, 10}; {0, 0} when it does not start with MAJOR.MINOR.
std::pair<int, int> major_minor(const std::string& v) {
  int a = 0, b = 0;
  if (std::sscanf(v.c_str(), "%d.%d", &a, &b) != 2) return {0, 0};
  return {a, b};
}

std::string torch_of(const Side& s) {
  const nlohmann::json& v = s.result.versions;
  return v.is_object() && v.contains("torch") && v["torch"].is_string() ? v["torch"].get<std::string>() : s.cell->torch;
}

// The stable ABI's promise for one pair: from the target on it loads and computes; below it,
// the loader stops at a shim symbol the older torch does not have.
std::string promised_outcome(const Side& build, const Side& runtime) {
  return major_minor(torch_of(runtime)) >= major_minor(build.target) ? "loads" : "undefined_symbol";
}

// pair["promised"]: what the stable ABI promises for it; pair["as_promised"]: whether it held
// (a load that then computes wrong answers does not keep the promise).
void judge_promise(nlohmann::json& pair, const std::string& promised) {
  pair["promised"] = promised;
  const bool computes = !pair.contains("computes") || pair["computes"] != "fail";
  pair["as_promised"] = pair.value("outcome", "") == promised && (promised != "loads" || computes);
}

// Whether a runtime cell has our case binaries in its build folder (/build in its container).
bool has_cases(const Side& runtime) { return runtime_has_cases(*runtime.cell, runtime.result); }

// An image removed since its cell ran (to free disk): nothing can run in it any more.
bool image_gone(Engine& engine, const std::string& image) {
  return engine.name() != "host" && engine.image_id(image).empty();
}

std::string ops_list(const Matrix& m) {
  std::string out;
  for (const auto& op : m.ops) out += (out.empty() ? "" : ",") + op;
  return out;
}

// Every in-cell script, as a cell's key has them: cross_load.py runs load_library.py in children
// of zygote.py's fork server, and load_library.py imports several of its neighbours.
std::string scripts_hash(const std::string& data_root) { return tree_hash(data_root, {"scripts/cell"}); }

// Every pair's predicted outcome, from the builds' imports and the runtimes' exports alone
// (crossload/load_prediction.h), next to the measured one; out["prediction"] sums up the agreement.
void add_predictions(nlohmann::json& out, const std::vector<Side>& builds, const std::vector<Side>& runtimes,
                     Engine& engine, AbiSurfaces& surfaces) {
  std::map<std::string, std::vector<const Side*>> by_cell;
  for (const auto& b : builds) by_cell[b.cell->id].push_back(&b);
  std::map<std::string, LibraryImports> imports;  // by host library path
  for (const auto& [id, sides] : by_cell) {
    std::vector<std::string> libs;
    Fnv64 key;
    for (const Side* s : sides) {
      libs.push_back(s->library);
      key.add(s->library).add(s->library_hash);
    }
    // readelf and nm read a file the same in any image: where the build's own image is gone,
    // a runtime's reads it (the build's folder is mounted all the same).
    std::string image = sides.front()->result.image;
    if (!runtimes.empty() && image_gone(engine, image))
      image = runtimes.front().result.image;
    auto got = surfaces.imports(*sides.front()->cell, image, libs, key.hex());
    imports.insert(got.begin(), got.end());
  }
  std::map<std::string, RuntimeExports> exports;
  for (const auto& rt : runtimes)
    if (auto e = surfaces.exports(*rt.cell, rt.result.image)) exports.emplace(rt.cell->id, std::move(*e));
  int compared = 0, agree = 0;
  nlohmann::json disagree = nlohmann::json::array();
  for (auto& pair : out["pairs"]) {
    const Side* build = nullptr;
    for (const auto& b : builds)
      if (b.cell->id == pair.value("built_in", "") && b.abi == pair.value("abi", "aten") &&
          b.ns == pair.value("namespace", "opmatrix"))
        build = &b;
    auto imp = build ? imports.find(build->library) : imports.end();
    auto exp = exports.find(pair.value("run_in", ""));
    if (imp == imports.end() || exp == exports.end()) continue;
    const LoadPrediction p = predict_load(imp->second, exp->second);
    pair["predicted"] = to_json(p);
    const std::string measured = pair.value("outcome", "error");
    if (measured == "crash" || measured == "timeout" || measured == "error") continue;  // nothing to compare
    ++compared;
    const bool same = prediction_agrees(p.outcome, measured);
    pair["prediction_agrees"] = same;
    if (same) ++agree;
    else
      disagree.push_back(fmt::format("{}{} in {}: predicted {} ({}), measured {} ({})", build->cell->id,
                                     build->ns != "opmatrix" ? " (" + build->ns + " " + fs::path(build->library).filename().string() + ")"
                                     : build->abi == "stable" ? " (stable)" : "", pair.value("run_in", ""), p.outcome,
                                     p.reason, measured, pair.value("summary", "")));
  }
  out["prediction"] = {{"pairs", compared}, {"agree", agree}, {"disagree", disagree}};
}

// Upstream's own stable-ABI library as a known subject: torchvision's _C_stable.so (0.29 on),
// copied out of each runtime image that has it into that cell's build folder, then loaded into
// every runtime like our builds (its target is torchvision's business: measured, not judged).
// A probed cell that is not a runtime here (its image is on another machine: a GitHub job per
// runtime) still gives its subject when its build folder holds the copy its own job made.
std::vector<Side> torchvision_stable_subjects(Engine& engine, const std::vector<Side>& probed,
                                              const std::vector<Side>& runtimes, const Progress& progress) {
  std::vector<Side> out;
  for (const auto& rt : probed) {
    const nlohmann::json& v = rt.result.versions;
    const std::string ext = v.is_object() && v.contains("torchvision_ext") && v["torchvision_ext"].is_string()
                                ? v["torchvision_ext"].get<std::string>() : "";
    if (fs::path(ext).filename().string().find("_stable") == std::string::npos) continue;
    const std::string name = fs::path(ext).filename().string();
    const bool host = engine.name() == "host";
    const std::string host_copy = engine.host_build_dir(*rt.cell) + "/xload-subjects/" + name;
    const bool is_runtime = std::any_of(runtimes.begin(), runtimes.end(), [&](const Side& r) { return r.cell == rt.cell; });
    if (!is_runtime && !fs::is_regular_file(host_copy)) continue;
    StepCommand cmd;
    cmd.cell_id = rt.cell->id;
    cmd.step = "cross-load-subject";
    cmd.argv = {"install", "-D", "-m", "0644", ext,
                host ? host_copy : engine.paths(*rt.cell).build + "/xload-subjects/" + name};
    cmd.timeout_s = 120;
    // The copy stands while the image it came from does (its tag names its recipe's content): a
    // rerun with nothing new starts no container for it (0.16.0's did, 1 s of a 1.5-s rerun).
    const std::string copied_from = host_copy + ".image";
    const bool copied_before = fs::is_regular_file(host_copy) && read_text_file(copied_from) == rt.result.image;
    if (is_runtime && !copied_before) {
      ProcessResult r = engine.run_step(rt.result.image, *rt.cell, cmd);
      if (!r.ok() || !fs::is_regular_file(host_copy)) {
        progress("cross-load", fmt::format("{}: could not copy {} out of the image (exit {})", rt.cell->id, ext, r.exit_code));
        continue;
      }
      write_file_atomically(copied_from, rt.result.image);
    }
    Side s = rt;
    s.library = host_copy;
    s.library_hash = Fnv64().add(read_text_file(host_copy)).hex();
    s.abi = "stable";
    s.target = "";
    s.ns = "torchvision";
    s.ops = kTorchvisionOps;
    out.push_back(std::move(s));
  }
  return out;
}

// A cell's side as its results file tells it; nullopt when it has no results of this engine.
std::optional<Side> side_of(const Cell& cell, Engine& engine, const std::string& results_dir) {
  nlohmann::json j = nlohmann::json::parse(read_text_file(results_dir + "/" + cell.id + ".json"), nullptr, false);
  if (!j.is_object()) return std::nullopt;
  Side s{&cell, {}, "", "", "aten", "", "opmatrix", ""};
  try {
    s.result = cell_result_from_json(j);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (s.result.engine != engine.name() || s.result.image.empty()) return std::nullopt;
  return s;
}

// The builds of our kernels the cell left in its build folder: the ATen library where its
// build check passed, the stable one where its stable-abi check names a target.
void add_builds_of(Side s, Engine& engine, std::vector<Side>& builds) {
  const std::string lib = engine.host_build_dir(*s.cell) + "/" + kLibrary;
  if (has_check(s.result, "build", true) && fs::is_regular_file(lib)) {
    s.library = lib;
    s.library_hash = Fnv64().add(read_text_file(lib)).hex();
    builds.push_back(s);
  }
  const std::string stable = engine.host_build_dir(*s.cell) + "/" + kStableLibrary;
  s.target = stable_target_of(s.result);
  if (!s.target.empty() && fs::is_regular_file(stable)) {
    s.library = stable;
    s.library_hash = Fnv64().add(read_text_file(stable)).hex();
    s.abi = "stable";
    builds.push_back(s);
  }
}

// The cells with results of this engine: builds (each library, and upstream subjects),
// runtimes (this job's, whose image is here) and the probed ones (a versions check each).
struct CrossLoadSides {
  std::vector<Side> builds, runtimes, probed;
  std::vector<std::string> unavailable;  // runtimes that cannot run, each with why
};

CrossLoadSides gather_sides(const Matrix& matrix, Engine& engine, const CrossLoadSettings& settings,
                            const Progress& progress) {
  CrossLoadSides sides;
  auto wanted = [&](const Cell& c) {
    return settings.runtimes.empty() ||
           std::find(settings.runtimes.begin(), settings.runtimes.end(), c.id) != settings.runtimes.end();
  };
  for (const auto& cell : matrix.cells) {
    if (cell.project) continue;  // other op libraries have their own names; ours is compared
    const std::optional<Side> s = side_of(cell, engine, settings.results_dir);
    if (!s) continue;
    const bool probed = has_check(s->result, "versions", false);
    // A runtime whose image was removed since (to free disk) cannot load anything; its build
    // still can be loaded elsewhere.
    if (probed) sides.probed.push_back(*s);
    if (!wanted(cell)) {
      // not a runtime in this job: its build and subject only
    } else if (probed && image_gone(engine, s->result.image))
      sides.unavailable.push_back(fmt::format("{}: its image {} is gone; `opmatrix run --cell {} --images-only` "
                                              "rebuilds it", cell.id, s->result.image, cell.id));
    else if (probed)
      sides.runtimes.push_back(*s);
    add_builds_of(*s, engine, sides.builds);
  }
  for (auto& subject : torchvision_stable_subjects(engine, sides.probed, sides.runtimes, progress))
    sides.builds.push_back(std::move(subject));
  return sides;
}

nlohmann::json build_entry(const Side& b) {
  nlohmann::json e = {{"cell", b.cell->id}, {"abi", b.abi}, {"torch", torch_of(b)}, {"cuda", b.cell->cuda},
                      {"library", fs::path(b.library).filename().string()}, {"library_hash", b.library_hash},
                      {"namespace", b.ns}};
  if (!b.target.empty()) e["target"] = b.target;
  return e;
}

// What a runtime's loads depend on: its image, the scripts, the ops, and every build.
std::string runtime_key(const Side& rt, const std::vector<Side>& builds, const std::string& scripts,
                        const Matrix& matrix) {
  Fnv64 key;
  key.add("opmatrix-cross-load-v2").add(has_cases(rt) ? "cases" : "").add(kOpmatrixVersion).add(rt.result.image).add(scripts).add(ops_list(matrix));
  for (const auto& b : builds) key.add(b.cell->id).add(b.abi).add(b.ns).add(b.library_hash);
  return key.hex();
}

// The same runtime and the same builds: the last outcomes stand. True when `old` has them:
// its pairs are copied to `out`, its time and "cached" to `row`. (`old` is not const: a file
// without "pairs" reads as none.)
bool reuse_last_outcomes(nlohmann::json& old, const Side& rt, const std::string& key, nlohmann::json& row,
                         nlohmann::json& out) {
  if (!old.is_object() || !old.contains("runtimes")) return false;
  bool reused = false;
  for (const auto& o : old["runtimes"])
    if (o.value("cell", "") == rt.cell->id && o.value("key", "") == key) {
      for (const auto& p : old["pairs"])
        if (p.value("run_in", "") == rt.cell->id) out["pairs"].push_back(p);
      row["seconds"] = o.value("seconds", 0.0);
      row["cached"] = true;
      reused = true;
    }
  return reused;
}

// What every runtime's loads share.
struct LoadContext {
  const Matrix& matrix;
  Engine& engine;
  const CrossLoadSettings& settings;
  const std::vector<Side>& builds;
  std::string log_dir;
  const Progress& progress;
};

// The namespaces of the builds, in their order: one process tree each.
std::vector<std::string> namespaces_of(const std::vector<Side>& builds) {
  std::vector<std::string> namespaces;
  for (const auto& b : builds)
    if (std::find(namespaces.begin(), namespaces.end(), b.ns) == namespaces.end()) namespaces.push_back(b.ns);
  return namespaces;
}

// cross_load.py in runtime `rt` on the libraries of `group` (one namespace), each mounted
// read-only where the runtime's container can read it.
StepCommand group_command(const LoadContext& ctx, const Side& rt, const std::string& ns,
                          const std::vector<const Side*>& group) {
  Engine& engine = ctx.engine;
  StepCommand cmd;
  cmd.cell_id = rt.cell->id;
  cmd.step = "cross-load";
  const std::string ops = group.front()->ops.empty() ? ops_list(ctx.matrix) : group.front()->ops;
  cmd.argv = {engine.paths(*rt.cell).scripts + "/python.sh", engine.paths(*rt.cell).scripts + "/cross_load.py",
              "--namespace", ns, "--ops", ops};
  // Pairs that load then run this runtime's correctness cases on the foreign library.
  if (ns == "opmatrix" && has_cases(rt)) cmd.argv.insert(cmd.argv.end(), {"--cases", engine.paths(*rt.cell).build});
  const bool host = engine.name() == "host";
  std::set<std::string> mounted;
  for (const Side* b : group) {
    const std::string dir = fs::path(b->library).parent_path().string();
    const std::string inside = "/xload/" + Fnv64().add(dir).hex();
    if (!host && mounted.insert(inside).second) cmd.read_only_mounts.emplace_back(dir, inside);
    cmd.argv.push_back(host ? b->library : inside + "/" + fs::path(b->library).filename().string());
  }
  cmd.log_path = ctx.log_dir + "/" + rt.cell->id + (ns == "opmatrix" ? "" : "." + ns) + ".log";
  cmd.capture_stdout = true;
  cmd.timeout_s = ctx.settings.timeout_s;
  return cmd;
}

// One pair as cross_load.py measured it; a stable build's pair is judged against its promise.
nlohmann::json measured_pair(const nlohmann::json& entry, const Side& build, const Side& rt) {
  nlohmann::json pair = cross_load_outcome(entry);
  pair["built_in"] = build.cell->id;
  pair["abi"] = build.abi;
  pair["namespace"] = build.ns;
  pair["run_in"] = rt.cell->id;
  if (build.abi == "stable" && !build.target.empty()) judge_promise(pair, promised_outcome(build, rt));
  return pair;
}

enum class GroupLoad { ok, failed, interrupted };

// Loads one namespace's builds in runtime `rt`: their pairs go to `out`, the time (and the
// command, or the error) to `row`; `loads` counts the pairs that load.
GroupLoad load_group(const LoadContext& ctx, const Side& rt, const std::string& ns, nlohmann::json& row,
                     nlohmann::json& out, int& loads) {
  std::vector<const Side*> group;
  for (const auto& b : ctx.builds)
    if (b.ns == ns) group.push_back(&b);
  const StepCommand cmd = group_command(ctx, rt, ns, group);
  ctx.progress("cross-load", fmt::format("{}: loading {} {} builds ...", rt.cell->id, group.size(), ns));
  ProcessResult r = ctx.engine.run_step(rt.result.image, *rt.cell, cmd);
  row["seconds"] = row["seconds"].get<double>() + r.seconds;
  // The command that reruns our builds' loads (the first group); a subject's is in its log.
  if (!row.contains("command")) row["command"] = ctx.engine.display(rt.result.image, *rt.cell, cmd);
  nlohmann::json report = nlohmann::json::parse(r.stdout_text, nullptr, false);
  if (!r.ok() || !report.is_object() || !report.contains("results")) {
    row["error"] = r.timed_out ? "timed out" : fmt::format("the cross-load step failed (exit {}, see {})", r.exit_code, cmd.log_path);
    for (const Side* b : group)
      out["pairs"].push_back({{"built_in", b->cell->id}, {"abi", b->abi}, {"namespace", b->ns}, {"run_in", rt.cell->id},
                              {"outcome", "error"}, {"summary", row["error"]}, {"symbols", nlohmann::json::array()}});
    ctx.progress("cross-load", fmt::format("{}: {}", rt.cell->id, row["error"].get<std::string>()));
    return r.interrupted ? GroupLoad::interrupted : GroupLoad::failed;
  }
  for (std::size_t i = 0; i < group.size() && i < report["results"].size(); ++i) {
    nlohmann::json pair = measured_pair(report["results"][i], *group[i], rt);
    loads += pair["outcome"] == "loads";
    out["pairs"].push_back(pair);
  }
  return GroupLoad::ok;
}

// Every build loaded in runtime `rt`, one process tree per namespace: our builds (then this
// runtime's cases on each that loads), and upstream subjects with their own ops.
void load_into_runtime(const LoadContext& ctx, const Side& rt, nlohmann::json& row, nlohmann::json& out) {
  int loads = 0;
  bool failed = false;
  row["seconds"] = 0.0;
  for (const auto& ns : namespaces_of(ctx.builds)) {
    const GroupLoad g = load_group(ctx, rt, ns, row, out, loads);
    if (g == GroupLoad::ok) continue;
    failed = true;
    if (g == GroupLoad::interrupted) break;
  }
  out["runtimes"].push_back(row);
  if (failed) return;
  ctx.progress("cross-load", fmt::format("{}: {} of {} builds load and register ({:.1f} s)", rt.cell->id, loads,
                                         ctx.builds.size(), row["seconds"].get<double>()));
}

}  // namespace

nlohmann::json empty_cross_load_file(const std::string& engine) {
  return {{"schema_version", kCrossLoadSchemaVersion},
          {"kind", "opmatrix-cross-load"},
          {"harness_version", kOpmatrixVersion},
          {"generated_at", now_iso8601()},
          {"engine", engine},
          {"builds", nlohmann::json::array()},
          {"runtimes", nlohmann::json::array()},
          {"pairs", nlohmann::json::array()}};
}

// The `test` step is what to ask: its results are per-op `correctness` checks.
bool runtime_has_cases(const Cell& cell, const CellResult& result) {
  if (cell.project || !has_check(result, "build", true)) return false;
  for (const auto& s : result.steps)
    if (s.name == "test" && (s.status == Status::pass || s.status == Status::xfail)) return true;
  return false;
}

nlohmann::json cross_load_outcome(const nlohmann::json& entry) {
  nlohmann::json out = {{"outcome", "error"}, {"summary", ""}, {"symbols", nlohmann::json::array()}};
  if (entry.value("timed_out", false)) {
    out["outcome"] = "timeout";
    out["summary"] = "loading did not finish";
    return out;
  }
  const nlohmann::json report = entry.contains("report") ? entry["report"] : nlohmann::json();
  if (entry.contains("signal") && entry["signal"].is_string()) {
    out["outcome"] = "crash";
    out["summary"] = "the process died with " + entry["signal"].get<std::string>() + " while loading";
    return out;
  }
  if (!report.is_object()) {
    out["summary"] = "no report (exit " + entry.value("exit_code", nlohmann::json()).dump() + "): " +
                     entry.value("stderr", std::string()).substr(0, 300);
    return out;
  }
  if (report.contains("error") && report["error"].is_string()) {
    out["summary"] = report["error"];
    return out;
  }
  if (!report.contains("libraries") || report["libraries"].empty()) return out;
  const nlohmann::json& lib = report["libraries"][0];
  if (!lib.value("loaded", false)) {
    const std::string kind = lib.value("error_kind", std::string("other"));
    out["outcome"] = kind == "undefined_symbol" ? "undefined_symbol" : kind == "missing_library" ? "missing_library" : "error";
    out["summary"] = load_failure_summary(lib);
    if (lib.contains("undefined"))
      for (const auto& s : lib["undefined"]) out["symbols"].push_back(s.value("demangled", s.value("symbol", "")));
    if (lib.contains("undefined_count")) out["undefined_count"] = lib["undefined_count"];
    return out;
  }
  std::vector<std::string> missing;
  if (report.contains("ops"))
    for (const auto& [op, keys] : report["ops"].items())
      if (!keys.contains("CPU") || !keys["CPU"].is_boolean() || !keys["CPU"].get<bool>()) missing.push_back(op);
  if (!missing.empty()) {
    out["outcome"] = "not_registered";
    out["summary"] = fmt::format("loads, but {} have no CPU kernel", fmt::join(missing, ", "));
    return out;
  }
  out["outcome"] = "loads";
  out["summary"] = "loads and registers every op";
  // The runtime's correctness cases, run on this library (cross_load.py --cases).
  if (entry.contains("cases") && entry["cases"].is_array() && !entry["cases"].empty()) {
    int passed_binaries = 0, tests = 0;
    std::vector<std::string> failures;
    for (const auto& c : entry["cases"]) {
      tests += c.value("tests", 0);
      if (c.value("exit_code", -1) == 0) {
        ++passed_binaries;
        continue;
      }
      std::string what = c.value("name", "?");
      if (c.contains("failed") && c["failed"].is_array() && !c["failed"].empty())
        what += ": " + c["failed"][0].get<std::string>();
      else if (c.value("timed_out", false))
        what += ": timed out";
      else
        what += fmt::format(": exit {}", c.value("exit_code", nlohmann::json()).dump());
      failures.push_back(what);
    }
    const std::size_t n = entry["cases"].size();
    out["computes"] = failures.empty() ? "pass" : "fail";
    out["cases"] = {{"binaries", n}, {"passed", passed_binaries}, {"tests", tests}, {"failures", failures}};
    out["summary"] = failures.empty()
                         ? fmt::format("loads, registers every op, and passes this runtime's {} correctness binaries ({} tests)", n, tests)
                         : fmt::format("loads, but {} of {} correctness binaries fail: {}", failures.size(), n,
                                       fmt::join(failures, "; "));
  }
  return out;
}

nlohmann::json run_cross_load(const Matrix& matrix, Engine& engine, const CrossLoadSettings& settings,
                              const Progress& progress) {
  const std::string path = settings.results_dir + "/" + kCrossLoadFile;
  nlohmann::json old = nlohmann::json::parse(read_text_file(path), nullptr, false);
  const CrossLoadSides sides = gather_sides(matrix, engine, settings, progress);
  if (settings.subjects_only) return nlohmann::json::object();
  const std::string scripts = scripts_hash(engine.config().data_root);
  nlohmann::json out = empty_cross_load_file(engine.name());
  for (const auto& u : sides.unavailable) progress("cross-load", "not a runtime: " + u);
  if (!sides.unavailable.empty()) out["runtimes_unavailable"] = sides.unavailable;
  for (const auto& b : sides.builds) out["builds"].push_back(build_entry(b));
  if (sides.builds.empty() || sides.runtimes.empty()) {
    write_file_atomically(path, out.dump(2) + "\n");
    return out;
  }
  // Each runtime's loads are one Python process at a time (an import of torch, then dlopen):
  // up to as many runtimes at once as the machine has cores, at most kRuntimesAtOnce, each into
  // its own part, merged in the runtimes' order (0.16.0's main job spent 156 s one after the other).
  std::mutex said;
  const Progress one_line_at_a_time = [&](const std::string& who, const std::string& line) {
    std::lock_guard<std::mutex> lock(said);
    progress(who, line);
  };
  const LoadContext ctx{matrix, engine, settings, sides.builds, settings.results_dir + "/logs/cross-load",
                        one_line_at_a_time};
  fs::create_directories(ctx.log_dir);
  std::vector<nlohmann::json> parts(sides.runtimes.size(), empty_cross_load_file(engine.name()));
  std::vector<nlohmann::json> rows(sides.runtimes.size());
  std::vector<std::size_t> to_load;
  for (std::size_t i = 0; i < sides.runtimes.size(); ++i) {
    const Side& rt = sides.runtimes[i];
    const std::string key = runtime_key(rt, sides.builds, scripts, matrix);
    rows[i] = {{"cell", rt.cell->id},
               {"torch", rt.result.versions.value("torch", nlohmann::json(rt.cell->torch))},
               {"cuda", rt.cell->cuda},
               {"image", rt.result.image},
               {"key", key}};
    if (!settings.no_cache && reuse_last_outcomes(old, rt, key, rows[i], parts[i])) {
      progress("cross-load", fmt::format("{}: cached (key {})", rt.cell->id, key));
      parts[i]["runtimes"].push_back(rows[i]);
      continue;
    }
    to_load.push_back(i);
  }
  const bool all_cached = to_load.empty();
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t k = next++; k < to_load.size(); k = next++) {
      const std::size_t i = to_load[k];
      load_into_runtime(ctx, sides.runtimes[i], rows[i], parts[i]);
    }
  };
  const std::size_t at_once = std::min<std::size_t>(
      {to_load.size(), kRuntimesAtOnce, std::max(1u, std::thread::hardware_concurrency())});
  std::vector<std::thread> workers;
  for (std::size_t t = 1; t < at_once; ++t) workers.emplace_back(worker);
  worker();
  for (auto& w : workers) w.join();
  for (const auto& part : parts)
    for (const char* field : {"runtimes", "pairs"})
      for (const auto& item : part[field]) out[field].push_back(item);
  // Every runtime's outcomes stand, with the same builds (their keys say so): so do the
  // predictions the pairs carry, and their tally (reading the symbol surfaces again was most of a
  // rerun's 1.5 s in 0.16.0).
  const bool same_runtimes = old.is_object() && old.contains("runtimes") && old["runtimes"].size() == sides.runtimes.size();
  if (all_cached && same_runtimes && old.contains("prediction")) {
    out["prediction"] = old["prediction"];
  } else {
    AbiSurfaces surfaces(engine, settings.results_dir, progress);
    add_predictions(out, sides.builds, sides.runtimes, engine, surfaces);
  }
  progress("cross-load", fmt::format("prediction from symbols alone agrees with {} of {} measured pairs",
                                     out["prediction"].value("agree", 0), out["prediction"].value("pairs", 0)));
  write_file_atomically(path, out.dump(2) + "\n");
  return out;
}

}  // namespace opmatrix
