// Runs one program from an argv (never through a shell), with its output in a log file,
// a wall-clock limit and a way to stop it from outside (Ctrl-C of `opmatrix run`).
#pragma once

#include <atomic>
#include <string>
#include <utility>
#include <vector>

namespace opmatrix {

struct ProcessSpec {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing in) ours
  std::string log_path;        // stdout+stderr go here (appended); empty = discarded
  bool capture_stdout = false; // stdout into ProcessResult::stdout_text instead of the log
  double timeout_s = 0;        // 0 = none
  bool ignore_stop = false;    // keep running when a stop is requested (clean-up commands)
  // Run (best effort) at the time limit, before the kill, its output appended to the log under a
  // line of kTimeLimitListing: what was still running (`podman top NAME comm`).
  std::vector<std::string> on_timeout;
};

// The log line above what `on_timeout` printed.
inline constexpr const char* kTimeLimitListing = "[opmatrix] at the time limit, still running in it:";

struct ProcessResult {
  bool started = false;
  std::string start_error;  // why it could not start (e.g. "podman: No such file or directory")
  int exit_code = -1;       // valid when it exited
  int signal = 0;           // the signal that ended it, 0 if it exited
  bool timed_out = false;
  bool interrupted = false;  // stopped because the harness was asked to stop
  double seconds = 0;
  std::string stdout_text;

  bool ok() const { return started && signal == 0 && exit_code == 0 && !timed_out && !interrupted; }
};

// Set by the SIGINT/SIGTERM handler; every running process is stopped when it turns true.
std::atomic<bool>& stop_requested();
void install_stop_handlers();

// Called once the process group is killed (after a timeout or stop), e.g. to remove the
// container a killed `podman run` client leaves behind.
using KillHook = std::vector<std::string>;  // argv run (best effort) after killing

ProcessResult run_process(const ProcessSpec& spec, const KillHook& on_kill = {});

// "a 'b c' d": for showing a command to a person (reproduction lines), never for running it.
std::string shell_quote_for_display(const std::vector<std::string>& argv);

}  // namespace opmatrix
