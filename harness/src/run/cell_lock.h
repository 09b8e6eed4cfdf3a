// One run at a time per cell build folder: two `opmatrix run`s (two terminals, a run and a
// `bisect`) that select the same cell must never build in the same tree. The lock is an
// flock(2) on WORK/cells/ID/lock, so the kernel releases it when its holder exits, however it
// ends (a signal, a crash, `kill -9`); the file holds who holds it, for the other's message.
#pragma once

#include <optional>
#include <string>

namespace opmatrix {

class CellWorkLock {
 public:
  // Takes the lock of the cell folder `cell_dir` (made when missing) without waiting, writing
  // `holder` (who this run is) into it. nullopt when another process holds it; `busy_holder`
  // then gets what that one wrote. Throws std::runtime_error when the file cannot be opened.
  static std::optional<CellWorkLock> try_acquire(const std::string& cell_dir, const std::string& holder,
                                                 std::string* busy_holder);
  CellWorkLock(CellWorkLock&& other) noexcept;
  CellWorkLock& operator=(CellWorkLock&& other) noexcept;
  CellWorkLock(const CellWorkLock&) = delete;
  ~CellWorkLock();

 private:
  explicit CellWorkLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// "pid 1234 (opmatrix run --cell X), since 2026-11-26T03:00:00Z": this process, for the lock file.
std::string this_run_holder(const std::string& command);

}  // namespace opmatrix
