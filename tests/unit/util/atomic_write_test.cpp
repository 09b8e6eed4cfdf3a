// write_file_atomically: a reader sees the old content or the new, whole; and two threads of
// one process writing one file at once (an atlas's two lanes probing the same new image) both
// succeed, one of their contents whole, no temporary file left.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "util/atomic_write.h"

namespace opmatrix {

TEST(AtomicWrite, TwoThreadsWritingOneFileBothSucceedAndOneWinsWhole) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("opmatrix-atomic-write-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "probe.json").string();
  const std::string a(200000, 'a'), b(200000, 'b');
  for (int round = 0; round < 50; ++round) {
    std::vector<std::thread> writers;
    for (const std::string* text : {&a, &b})
      writers.emplace_back([&path, text] { EXPECT_NO_THROW(write_file_atomically(path, *text)); });
    for (auto& w : writers) w.join();
    const std::string got = read_text_file(path);
    EXPECT_TRUE(got == a || got == b) << "round " << round << ": " << got.size() << " bytes, mixed";
  }
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"probe.json"});
  std::filesystem::remove_all(dir);
}

}  // namespace opmatrix
