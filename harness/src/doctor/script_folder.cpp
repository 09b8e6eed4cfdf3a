#include "doctor/script_folder.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "embedded_scripts.h"
#include "engine/process.h"
#include "util/atomic_write.h"

namespace fs = std::filesystem;

namespace opmatrix {

ScriptFolder::ScriptFolder() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/opmatrix-doctor-XXXXXX";
  if (!::mkdtemp(templ.data()))
    throw std::runtime_error(fmt::format("cannot make a temporary folder {}: {}", templ, std::strerror(errno)));
  path_ = templ;
  try {
    for (const auto& s : kEmbeddedScripts) write_file_atomically(script(s.name), s.text);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(path_, ec);
    throw;
  }
}

ScriptFolder::~ScriptFolder() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::vector<std::string> embedded_script_names() {
  std::vector<std::string> names;
  for (const auto& s : kEmbeddedScripts) names.emplace_back(s.name);
  return names;
}

std::string tail_lines(const std::string& text, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  while (!lines.empty() && lines.back().find_first_not_of(" \t\r") == std::string::npos) lines.pop_back();
  const std::size_t first = lines.size() > max_lines ? lines.size() - max_lines : 0;
  std::string tail;
  for (std::size_t i = first; i < lines.size(); ++i) tail += (i == first ? "" : "\n") + lines[i];
  constexpr std::size_t kMax = 4000;
  if (tail.size() > kMax) tail = "…" + tail.substr(tail.size() - kMax);
  return tail;
}

ScriptRun run_embedded_script(const std::string& python, const ScriptFolder& folder, const std::string& script,
                              const std::vector<std::string>& args, double timeout_s) {
  ScriptRun run;
  run.script = script;
  ProcessSpec spec;
  spec.argv = {python, folder.script(script)};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  // stderr (tracebacks, warnings) into a file of the private folder, read back on failure.
  spec.log_path = folder.script(script) + ".stderr";
  spec.capture_stdout = true;
  spec.timeout_s = timeout_s;
  spec.env = {{"PYTHONDONTWRITEBYTECODE", "1"}};
  std::vector<std::string> shown = spec.argv;
  shown[1] = "scripts/cell/" + script;  // the temporary folder is gone once doctor ends
  run.command = shell_quote_for_display(shown);
  ProcessResult r = run_process(spec);
  run.seconds = r.seconds;
  run.exit_code = r.exit_code;
  run.signal = r.signal;
  run.timed_out = r.timed_out;
  if (!r.started) {
    run.error = fmt::format("could not start {}: {}", python, r.start_error);
  } else if (r.timed_out) {
    run.error = fmt::format("{} ran past {:.0f} s and was stopped", script, timeout_s);
  } else if (r.signal != 0) {
    run.error = fmt::format("{} was killed by signal {}", script, r.signal);
  } else if (r.exit_code != 0) {
    run.error = fmt::format("{} failed (exit {})", script, r.exit_code);
  } else {
    nlohmann::json j = nlohmann::json::parse(r.stdout_text, nullptr, false);
    if (!j.is_object()) run.error = fmt::format("{} exited 0 but printed no JSON object", script);
    else run.output = std::move(j);
  }
  run.ok = run.error.empty();
  if (!run.ok) {
    std::error_code ec;
    run.stderr_tail = fs::exists(spec.log_path, ec) ? tail_lines(read_text_file(spec.log_path), 15) : "";
    if (run.stderr_tail.empty() && !r.stdout_text.empty()) run.stderr_tail = "stdout: " + tail_lines(r.stdout_text, 5);
  }
  return run;
}

nlohmann::json script_run_json(const ScriptRun& run) {
  nlohmann::json j{{"ok", run.ok}, {"command", run.command}, {"exit_code", run.exit_code},
                   {"seconds", std::round(run.seconds * 100) / 100}};
  if (!run.ok) {
    j["error"] = run.error;
    j["signal"] = run.signal;
    j["timed_out"] = run.timed_out;
    j["stderr_tail"] = run.stderr_tail;
  }
  return j;
}

}  // namespace opmatrix
