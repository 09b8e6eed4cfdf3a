#include "engine/process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

namespace opmatrix {

std::atomic<bool>& stop_requested() {
  static std::atomic<bool> flag{false};
  return flag;
}

namespace {

void on_stop_signal(int) { stop_requested().store(true); }

std::vector<std::string> merged_environment(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    const auto eq = kv.find('=');
    if (eq != std::string::npos) vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : extra) vars[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// One process as /proc/PID/stat tells it; `start` (clock ticks after boot) tells a reused
// PID from the process we saw.
struct ProcInfo {
  pid_t pid = 0, ppid = 0, pgrp = 0;
  unsigned long long start = 0;
};

bool read_proc(pid_t pid, ProcInfo& out) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const auto close = stat.rfind(')');  // the command name may hold spaces and ')'
  if (close == std::string::npos) return false;
  std::istringstream rest(stat.substr(close + 2));
  std::string state;
  rest >> state >> out.ppid >> out.pgrp;
  std::string skip;
  for (int field = 6; field < 22; ++field) rest >> skip;  // fields 6..21
  rest >> out.start;
  out.pid = pid;
  return static_cast<bool>(rest) && state != "Z";
}

// The processes below `root` that left its process group: a container's first process, which
// runc starts in a session of its own under `podman build`. Killing the group misses them, and
// a killed build client leaves them running (a RUN step that sleeps or downloads for minutes).
std::vector<ProcInfo> escaped_descendants(pid_t root) {
  std::multimap<pid_t, ProcInfo> children;
  if (DIR* d = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(d)) {
      const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
      ProcInfo p;
      if (pid > 0 && read_proc(pid, p)) children.emplace(p.ppid, p);
    }
    ::closedir(d);
  }
  std::vector<ProcInfo> out;
  std::vector<pid_t> todo = {root};
  std::set<pid_t> seen = {root};
  while (!todo.empty()) {
    const pid_t parent = todo.back();
    todo.pop_back();
    for (auto [it, end] = children.equal_range(parent); it != end; ++it) {
      if (!seen.insert(it->second.pid).second) continue;
      if (it->second.pgrp != root) out.push_back(it->second);
      todo.push_back(it->second.pid);
    }
  }
  return out;
}

}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

namespace {

// Appends what the (non-blocking) pipe holds now to `text`.
void drain(int fd, std::string& text) {
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
}

// Where the child's output goes: a pipe for stdout when it is captured, and the log (else
// /dev/null). false, with r.start_error, when one cannot be opened.
bool open_outputs(const ProcessSpec& spec, int out_pipe[2], int& log_fd, ProcessResult& r) {
  if (spec.capture_stdout && ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    r.start_error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  if (spec.log_path.empty()) {
    log_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    return true;
  }
  log_fd = ::open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd >= 0) return true;
  r.start_error = "cannot open log " + spec.log_path + ": " + std::strerror(errno);
  return false;
}

// Starts the child with stdin from /dev/null; 0, or posix_spawnp's error number.
int spawn_child(const ProcessSpec& spec, int stdout_fd, int log_fd, pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, log_fd, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so a timeout stops the whole tree (cmake -> ninja -> c++).
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> argv = spec.argv;
  std::vector<std::string> envv = merged_environment(spec.env);
  auto cargv = c_strings(argv);
  auto cenv = c_strings(envv);
  const int rc = posix_spawnp(&pid, cargv[0], &actions, &attr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc;
}

// A short command run best effort, even while stopping (clean-up, a last look): 15 s at most.
void run_best_effort(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env = {},
                     const std::string& log_path = "") {
  ProcessSpec hook;
  hook.argv = argv;
  hook.env = env;
  hook.log_path = log_path;
  hook.timeout_s = 15;
  hook.ignore_stop = true;
  run_process(hook);
}

void run_kill_hook(const KillHook& on_kill) {
  if (!on_kill.empty()) run_best_effort(on_kill);
}

// What a step that ran out of time was doing (a compiler still at work, or nothing: a hang),
// into its log, for the diagnosis to read.
void list_what_still_runs(const ProcessSpec& spec) {
  if (spec.on_timeout.empty() || spec.log_path.empty()) return;
  if (std::FILE* log = std::fopen(spec.log_path.c_str(), "a")) {
    std::fprintf(log, "\n%s\n", kTimeLimitListing);
    std::fclose(log);
  }
  run_best_effort(spec.on_timeout, spec.env, spec.log_path);
}

// The client we stopped is gone: what it started outside its group is orphaned now, and no
// one else will stop it (a container's first process ignores SIGTERM: SIGKILL).
void kill_orphans(const std::map<pid_t, ProcInfo>& escaped) {
  for (const auto& [p, seen] : escaped) {
    ProcInfo now;
    if (read_proc(p, now) && now.start == seen.start) ::kill(p, SIGKILL);
  }
}

// Waits for the child, reading `out_fd` (-1: none) into r.stdout_text as it goes; past its
// time or on a stop, stops its group (and what escaped it). Its wait status.
int wait_for_child(const ProcessSpec& spec, const KillHook& on_kill, pid_t pid, int out_fd,
                   std::chrono::steady_clock::time_point t0, ProcessResult& r) {
  int status = 0;
  bool killed = false, hard_killed = false;
  double killed_at = 0;
  std::map<pid_t, ProcInfo> escaped;  // seen below a process we are killing, outside its group
  auto note_escaped = [&] {
    for (const ProcInfo& p : escaped_descendants(pid)) escaped.emplace(p.pid, p);
  };
  for (;;) {
    if (out_fd >= 0) drain(out_fd, r.stdout_text);
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!killed) {
      r.timed_out = spec.timeout_s > 0 && elapsed > spec.timeout_s;
      r.interrupted = !r.timed_out && !spec.ignore_stop && stop_requested().load();
      if (r.timed_out || r.interrupted) {
        if (r.timed_out) list_what_still_runs(spec);
        // The whole group (cmake -> ninja -> c++), politely first: podman forwards SIGTERM.
        killed = true;
        killed_at = elapsed;
        note_escaped();  // before the signal: the tree falls apart once the client is gone
        ::kill(-pid, SIGTERM);
        run_kill_hook(on_kill);
      }
    } else {
      note_escaped();
      if (!hard_killed && elapsed - killed_at > 2.0) {
        hard_killed = true;
        ::kill(-pid, SIGKILL);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill_orphans(escaped);
  return status;
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec, const KillHook& on_kill) {
  ProcessResult r;
  if (spec.argv.empty()) {
    r.start_error = "empty command";
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  int out_pipe[2] = {-1, -1};
  int log_fd = -1;
  if (!open_outputs(spec, out_pipe, log_fd, r)) return r;
  pid_t pid = 0;
  const int rc = spawn_child(spec, spec.capture_stdout ? out_pipe[1] : log_fd, log_fd, pid);
  if (spec.capture_stdout) ::close(out_pipe[1]);
  ::close(log_fd);
  if (rc != 0) {
    r.start_error = spec.argv[0] + ": " + std::strerror(rc);
    if (spec.capture_stdout) ::close(out_pipe[0]);
    return r;
  }
  r.started = true;
  if (spec.capture_stdout) ::fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
  const int status = wait_for_child(spec, on_kill, pid, spec.capture_stdout ? out_pipe[0] : -1, t0, r);
  if (spec.capture_stdout) {
    drain(out_pipe[0], r.stdout_text);
    ::close(out_pipe[0]);
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string shell_quote_for_display(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                         "0123456789_-./:=@,+%") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace opmatrix
