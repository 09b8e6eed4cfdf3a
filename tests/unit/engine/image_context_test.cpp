#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "engine/engine.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {
class ImageContext : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("opmatrix-context-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sub");
    for (const char* f : {"a.sh", "b.sh", "probe.py", "sub/c.txt"}) std::ofstream(dir_ / f) << f;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string at(const char* f) const { return (dir_ / f).string(); }
  fs::path dir_;
};
}  // namespace

TEST_F(ImageContext, OnlyCopiedFilesCount) {
  const auto files = copied_context_files("FROM x AS s\nCOPY a.sh /usr/local/bin/\nRUN true\n"
                                          "COPY --from=s /opt /opt\ncopy --chmod=755 b.sh sub /dst/\n",
                                          dir_);
  EXPECT_EQ(files, (std::vector<std::string>{at("a.sh"), at("b.sh"), at("sub/c.txt")}));
}

TEST_F(ImageContext, NoCopyMeansNoContext) {
  EXPECT_TRUE(copied_context_files("FROM debian\nRUN apt-get update\n", dir_).empty());
}

TEST_F(ImageContext, ContinuationLinesAreJoined) {
  EXPECT_EQ(copied_context_files("COPY a.sh \\\n  b.sh /x/\n", dir_), (std::vector<std::string>{at("a.sh"), at("b.sh")}));
}

TEST_F(ImageContext, WildcardOrUnknownSourceTakesTheWholeContext) {
  EXPECT_EQ(copied_context_files("COPY *.sh /x/\n", dir_).size(), 4u);
  EXPECT_EQ(copied_context_files("COPY missing.sh /x/\n", dir_).size(), 4u);
}

}  // namespace opmatrix
