#include "run/cell_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "util/clock.h"

namespace opmatrix {

namespace {

std::string read_all(int fd) {
  std::string out;
  char buf[512];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace

std::optional<CellWorkLock> CellWorkLock::try_acquire(const std::string& cell_dir, const std::string& holder,
                                                      std::string* busy_holder) {
  std::filesystem::create_directories(cell_dir);
  const std::string path = cell_dir + "/lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot open the cell's lock file: {}", path, std::strerror(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (busy_holder) {
      *busy_holder = read_all(fd);
      if (busy_holder->empty()) *busy_holder = "another process";
    }
    ::close(fd);
    return std::nullopt;
  }
  // Ours now: say who we are (the previous holder's text, if any, is stale).
  if (::ftruncate(fd, 0) == 0) {
    const std::string text = holder + "\n";
    ::lseek(fd, 0, SEEK_SET);
    [[maybe_unused]] const ssize_t n = ::write(fd, text.data(), text.size());
  }
  return CellWorkLock(fd);
}

CellWorkLock::CellWorkLock(CellWorkLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

CellWorkLock& CellWorkLock::operator=(CellWorkLock&& other) noexcept {
  std::swap(fd_, other.fd_);  // ours, if any, is released when `other` goes
  return *this;
}

CellWorkLock::~CellWorkLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

std::string this_run_holder(const std::string& command) {
  return fmt::format("pid {} ({}), since {}", ::getpid(), command, now_iso8601());
}

}  // namespace opmatrix
