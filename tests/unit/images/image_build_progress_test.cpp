// What a cold image build is doing, from its output lines. The lines are captured from real
// builds of this project's images with podman 4.3 (results/logs/<cell>/image.log of the runs of
// 2026-11-23), except the BuildKit ones, written to docker's --progress=plain format.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "images/image_build_progress.h"
#include "run/log_ticker.h"

namespace fs = std::filesystem;

namespace opmatrix {
namespace {

// Feeds `log`'s lines to `p` (a raw string: the lines as the build printed them); says what
// the progress line is then.
std::string feed(ImageBuildProgress& p, const std::string& log) {
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) feed_build_line(p, line);
  return describe_build_progress(p);
}

ImageBuildProgress fold(const std::string& log) {
  ImageBuildProgress p;
  feed(p, log);
  return p;
}

TEST(ImageBuildProgress, AptCountsTheArchivesAgainstNeedToGet) {
  // bookworm-torch1.13-cpu-cuda11.8, debian-cuda-toolkit: the update's index files come first
  // and are not part of the total.
  ImageBuildProgress p = fold(R"(STEP 5/11: RUN apt-get update  && apt-get install -y --no-install-recommends nvidia-cuda-toolkit  && apt-get clean
Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]
Get:2 http://deb.debian.org/debian bookworm/main amd64 Packages [8790 kB]
Fetched 15.3 MB in 2s (6468 kB/s)
0 upgraded, 325 newly installed, 0 to remove and 0 not upgraded.
Need to get 238 MB of archives.
After this operation, 1042 MB of additional disk space will be used.
Get:1 http://deb.debian.org/debian bookworm/main amd64 mailcap all 3.70+nmu1 [32.0 kB]
Get:2 http://deb.debian.org/debian bookworm/main amd64 mime-support all 3.66 [10.9 kB]
Get:3 http://deb.debian.org/debian bookworm/main amd64 libpng16-16 amd64 1.6.39-2+deb12u5 [277 kB]
Get:10 http://deb.debian.org/debian bookworm/main amd64 libkeyutils1 amd64 1.6.3-2 [8808 B])");
  EXPECT_EQ(p.step, "5/11");
  EXPECT_EQ(p.activity, "packages");
  EXPECT_DOUBLE_EQ(p.apt_total_bytes, 238e6);
  EXPECT_DOUBLE_EQ(p.apt_done_bytes, 32.0e3 + 10.9e3 + 277e3 + 8808);
  EXPECT_EQ(describe_build_progress(p),
            "step 5/11 (packages: RUN apt-get update && apt-get install -y --no-install-recomm…): "
            "apt: 329 kB of 238 MB fetched");
  EXPECT_NE(feed(p, "Fetched 238 MB in 10s (24.7 MB/s)").find("apt: 238 MB fetched"), std::string::npos);
  EXPECT_NE(feed(p, R"(Selecting previously unselected package libssl3:amd64.
Unpacking libssl3:amd64 (3.0.20-1~deb12u2) ...
Unpacking libpython3.11-minimal:amd64 (3.11.2-6+deb12u8) ...
Setting up libssl3:amd64 (3.0.20-1~deb12u2) ...)").find("apt: 2 packages unpacked, 1 set up"),
            std::string::npos);
}

TEST(ImageBuildProgress, PipCountsWheelsAndTheirSizes) {
  // pypi-torch2.10.0-cu12.8-nvcc12.4, the torch layer of a multi-stage build.
  ImageBuildProgress p = fold(R"([5/5] STEP 10/24: RUN pip-wheelhouse-install.sh /opt/venv/bin/python "torch==${TORCH}" ${TORCHVISION:+"torchvision==${TORCHVISION}"}
Collecting torch==2.10.0
  Downloading torch-2.10.0-3-cp311-cp311-manylinux_2_28_x86_64.whl (915.5 MB)
Collecting torchvision==0.25.0
  Downloading torchvision-0.25.0-cp311-cp311-manylinux_2_28_x86_64.whl (8.1 MB)
  Downloading nvidia_cudnn_cu12-9.10.2.21-py3-none-manylinux_2_27_x86_64.whl (706.8 MB)
  File was already downloaded /root/.cache/pip/wheelhouse/fsspec-2026.9.0-py3-none-any.whl)");
  EXPECT_EQ(p.stage, "[5/5]");
  EXPECT_EQ(p.activity, "wheels");
  EXPECT_EQ(p.wheels, 3);
  EXPECT_EQ(p.wheels_reused, 1);
  EXPECT_DOUBLE_EQ(p.wheel_bytes, 915.5e6 + 8.1e6 + 706.8e6);
  const std::string line = describe_build_progress(p);
  EXPECT_NE(line.find("[5/5] step 10/24 (wheels: "), std::string::npos) << line;
  EXPECT_NE(line.find("pip: 3 wheels, 1.6 GB so far, 1 from the wheelhouse (last nvidia_cudnn_cu12-9.10.2.21-py3-none-"
                      "manylinux_2_27_x86_64.whl)"), std::string::npos) << line;
  EXPECT_NE(feed(p, "Processing /root/.cache/pip/wheelhouse/torch-2.10.0-3-cp311-cp311-manylinux_2_28_x86_64.whl")
                .find("pip: installing 4 wheels"),
            std::string::npos);
}

TEST(ImageBuildProgress, ANewStepStartsAfreshAndCachedStepsSaySo) {
  ImageBuildProgress p = fold(R"([2/5] STEP 3/4: RUN apt-get update  && apt-get install -y --no-install-recommends python3 python3-pip
Need to get 13.4 MB of archives.
[5/5] STEP 3/24: RUN apt-get update  && apt-get install -y --no-install-recommends       g++ cmake ninja-build
--> Using cache d247503e5ce5babb29a382ca9ce82e960656267d799ba01f7218c943ba91f261)");
  EXPECT_EQ(p.stage, "[5/5]");
  EXPECT_EQ(p.step, "3/24");
  EXPECT_DOUBLE_EQ(p.apt_total_bytes, 0);
  EXPECT_TRUE(p.cached);
  EXPECT_NE(describe_build_progress(p).find(": cached"), std::string::npos);
  EXPECT_EQ(feed(p, "[5/5] COMMIT localhost/opmatrix/pypi:a8d4c3beb6d2f489"),
            "[5/5] committing the image (writing its layers; a 5 GB layer takes minutes)");
}

TEST(ImageBuildProgress, BaseImageAndNothingYet) {
  ImageBuildProgress p;
  EXPECT_EQ(describe_build_progress(p), "");
  EXPECT_EQ(feed(p, "make-base-image: mmdebstrap sid from http://deb.debian.org/debian\n"
                    "I: finding correct signed-by value..."),
            "base image: I: finding correct signed-by value...");
  EXPECT_EQ(p.activity, "base");
  EXPECT_EQ(feed(p, "STEP 1/11: FROM localhost/opmatrix-base:bookworm"),
            "step 1/11 (base: FROM localhost/opmatrix-base:bookworm)");
  EXPECT_EQ(p.activity, "base");
}

TEST(ImageBuildProgress, DockerBuildKitPlainOutput) {
  ImageBuildProgress p = fold(R"(#7 [stage-4 10/24] RUN pip-wheelhouse-install.sh /opt/venv/bin/python "torch==2.5.1"
#7 12.31   Downloading torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl (906.4 MB))");
  EXPECT_EQ(p.step, "10/24");
  EXPECT_EQ(p.activity, "wheels");
  EXPECT_DOUBLE_EQ(p.wheel_bytes, 906.4e6);
}

// A whole real log, line by line: the cold build of pypi-torch2.12.1-cu13.0's image, 2026-11-23
// (tests/data/image-logs/). What the line says at three moments is checked against what the log
// itself sums up (pip-wheelhouse-install.sh's "32 files, 2641 MiB", apt's "Need to get").
TEST(ImageBuildProgress, AWholeRealPypiImageLog) {
  std::ifstream in(std::string(OPMATRIX_TEST_DATA) + "/image-logs/pypi-torch2.12.1-cu13.0.log");
  ASSERT_TRUE(in) << "tests/data/image-logs/pypi-torch2.12.1-cu13.0.log";
  ImageBuildProgress p;
  std::string at_wheels_done, at_apt_fetched, at_apt_then_pip;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("pip-wheelhouse-install: 32 files", 0) == 0) {
      at_wheels_done = describe_build_progress(p);
      EXPECT_EQ(p.wheels + p.wheels_reused, 32);
      EXPECT_NEAR(p.wheel_bytes, 2641.0 * 1024 * 1024, 1e6);  // the script's own sum, within rounding
    }
    // Step 20 runs apt-get, then pip (after dpkg's "Processing triggers for libc-bin").
    if (line.rfind("pip-wheelhouse-install: 1 files", 0) == 0) at_apt_then_pip = describe_build_progress(p);
    if (line.rfind("Fetched 9021 kB", 0) == 0) {
      at_apt_fetched = describe_build_progress(p);
      EXPECT_NEAR(p.apt_done_bytes, p.apt_total_bytes, 0.001 * p.apt_total_bytes);
    }
    feed_build_line(p, line);
  }
  EXPECT_NE(at_wheels_done.find("[5/5] step 12/24 (wheels: "), std::string::npos) << at_wheels_done;
  EXPECT_NE(at_wheels_done.find("pip: 31 wheels, 2.8 GB so far, 1 from the wheelhouse"), std::string::npos) << at_wheels_done;
  EXPECT_NE(at_apt_fetched.find("[5/5] step 20/24 (packages: "), std::string::npos) << at_apt_fetched;
  EXPECT_NE(at_apt_fetched.find("apt: 9 MB of 9 MB fetched"), std::string::npos) << at_apt_fetched;
  EXPECT_NE(at_apt_then_pip.find("[5/5] step 20/24 (wheels: "), std::string::npos) << at_apt_then_pip;
  EXPECT_NE(at_apt_then_pip.find("pip: 1 wheels, 72 kB so far (last wheel-0.45.1-py3-none-any.whl)"), std::string::npos)
      << at_apt_then_pip;
  EXPECT_EQ(describe_build_progress(p), "[5/5] committing the image (writing its layers; a 5 GB layer takes minutes)");
}

TEST(ParseSize, DecimalAndBinaryUnits) {
  EXPECT_DOUBLE_EQ(parse_size("906.4", "MB"), 906.4e6);
  EXPECT_DOUBLE_EQ(parse_size("8808", "B"), 8808);
  EXPECT_DOUBLE_EQ(parse_size("2641", "MiB"), 2641.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_size("x", "MB"), 0);
  EXPECT_DOUBLE_EQ(parse_size("3", "parsecs"), 0);
}

// The timer: it reads what the build appends after it started, and speaks on its interval.
TEST(LogTicker, SaysWhatTheGrowingLogShows) {
  const fs::path log = fs::path(::testing::TempDir()) / "ticker_image.log";
  std::ofstream(log) << "STEP 1/2: FROM an-earlier-attempt\n";  // before the ticker: not this build's
  std::mutex m;
  std::vector<std::string> said;
  {
    LogTicker ticker(log.string(), 0.3, [&](const std::string& l) {
      std::lock_guard<std::mutex> lock(m);
      said.push_back(l);
    });
    std::ofstream(log, std::ios::app) << "STEP 2/9: RUN apt-get update && apt-get install -y g++\n"
                                         "Need to get 338 MB of archives.\n"
                                         "Get:1 http://deb.debian.org/debian bookworm/main amd64 gcc-12 amd64 12.2.0-14 [19.3 MB]\n";
    for (int i = 0; i < 50; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::lock_guard<std::mutex> lock(m);
      if (!said.empty() && said.back().find("19 MB of 338 MB") != std::string::npos) break;
    }
  }
  ASSERT_FALSE(said.empty());
  EXPECT_NE(said.back().find("s in: step 2/9 (packages: "), std::string::npos) << said.back();
  EXPECT_NE(said.back().find("apt: 19 MB of 338 MB fetched"), std::string::npos) << said.back();
  for (const auto& l : said) EXPECT_EQ(l.find("an-earlier-attempt"), std::string::npos) << l;
  fs::remove(log);
}

}  // namespace
}  // namespace opmatrix
