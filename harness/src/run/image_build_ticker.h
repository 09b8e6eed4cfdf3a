// While an image builds, a line every `interval_s` saying what the build is doing
// (run/image_build_progress.h), read from the build's log as it grows: a cold pypi image takes
// 4-7 minutes, and one line at its end is not enough for a person watching. Small on purpose:
// a thread that tails the log and a clock.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace opmatrix {

class ImageBuildTicker {
 public:
  // Starts reading `log_path` from its current end (the log is appended to by each attempt);
  // `say` gets "<elapsed> in: <what it does>" every `interval_s` until destroyed.
  ImageBuildTicker(std::string log_path, double interval_s, std::function<void(const std::string&)> say);
  ~ImageBuildTicker();
  ImageBuildTicker(const ImageBuildTicker&) = delete;
  ImageBuildTicker& operator=(const ImageBuildTicker&) = delete;

 private:
  void loop(std::uintmax_t offset);

  std::string log_path_;
  double interval_s_;
  std::function<void(const std::string&)> say_;
  // The destructor wakes the thread at once: a present image costs no wait.
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace opmatrix
