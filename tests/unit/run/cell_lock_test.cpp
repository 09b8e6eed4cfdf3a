#include "run/cell_lock.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace opmatrix {
namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / name;
  fs::remove_all(dir);
  return dir;
}

TEST(CellWorkLock, ASecondTakerIsRefusedAndToldWhoHoldsIt) {
  const fs::path dir = fresh_dir("cell_lock_second");
  auto first = CellWorkLock::try_acquire(dir.string(), "pid 1 (first run)", nullptr);
  ASSERT_TRUE(first);
  std::string holder;
  auto second = CellWorkLock::try_acquire(dir.string(), "pid 2 (second run)", &holder);
  EXPECT_FALSE(second);
  EXPECT_EQ(holder, "pid 1 (first run)");
}

TEST(CellWorkLock, IsFreeAgainWhenItsHolderLetsGo) {
  const fs::path dir = fresh_dir("cell_lock_release");
  { auto first = CellWorkLock::try_acquire(dir.string(), "first", nullptr); ASSERT_TRUE(first); }
  std::string holder;
  auto second = CellWorkLock::try_acquire(dir.string(), "second", &holder);
  ASSERT_TRUE(second) << "held by " << holder;
  std::ifstream in(dir / "lock");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "second") << "the file names its present holder, not the last one";
}

// The kernel releases an flock when its holder dies, even by SIGKILL: no stale lock after a
// crash or `kill -9` of a run.
TEST(CellWorkLock, IsFreeAgainWhenItsHolderIsKilled) {
  const fs::path dir = fresh_dir("cell_lock_killed");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = CellWorkLock::try_acquire(dir.string(), "the child", nullptr);
    const char ok = lock ? 'y' : 'n';
    [[maybe_unused]] auto n = ::write(ready[1], &ok, 1);
    ::pause();
    ::_exit(0);
  }
  char ok = 0;
  ASSERT_EQ(::read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, 'y');
  std::string holder;
  EXPECT_FALSE(CellWorkLock::try_acquire(dir.string(), "the parent", &holder)) << "the child holds it";
  EXPECT_EQ(holder, "the child");
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(CellWorkLock::try_acquire(dir.string(), "the parent", &holder));
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST(CellWorkLock, NamesThisProcessAsHolder) {
  const std::string holder = this_run_holder("opmatrix run");
  EXPECT_NE(holder.find("pid " + std::to_string(::getpid()) + " (opmatrix run), since "), std::string::npos) << holder;
}

}  // namespace
}  // namespace opmatrix
