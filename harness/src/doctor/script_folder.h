// The in-cell scripts doctor runs (scripts/cell, embedded in the binary at build time),
// written into a private temporary folder and run from there as `PY folder/script.py`, so
// that their imports of one another (dispatcher.py) resolve whatever the working folder.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace opmatrix {

// mkdtemp under $TMPDIR (else /tmp), mode 0700, holding every embedded script; removed,
// whole, with the object. Throws std::runtime_error when the folder cannot be made.
class ScriptFolder {
 public:
  ScriptFolder();
  ~ScriptFolder();
  ScriptFolder(const ScriptFolder&) = delete;
  ScriptFolder& operator=(const ScriptFolder&) = delete;

  const std::string& path() const { return path_; }
  std::string script(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The names of the embedded scripts (file names in scripts/cell).
std::vector<std::string> embedded_script_names();

// One run of a script that prints one JSON object on stdout.
struct ScriptRun {
  std::string script;       // its name, e.g. "probe.py"
  std::string command;      // for a person
  bool ok = false;          // started, exit 0, one JSON object printed
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  double seconds = 0;
  std::string error;        // why not ok, one line ("" when ok)
  std::string stderr_tail;  // the last lines it wrote to stderr (kept when not ok)
  nlohmann::json output;    // its JSON (null when not ok)
};

ScriptRun run_embedded_script(const std::string& python, const ScriptFolder& folder, const std::string& script,
                              const std::vector<std::string>& args, double timeout_s);

// {"ok", "command", "exit_code", "seconds", and when not ok "error", "signal", "timed_out",
// "stderr_tail"}; the output itself is not repeated.
nlohmann::json script_run_json(const ScriptRun& run);

// The last `max_lines` lines of `text` (at most ~4000 characters), without a trailing newline.
std::string tail_lines(const std::string& text, std::size_t max_lines);

}  // namespace opmatrix
