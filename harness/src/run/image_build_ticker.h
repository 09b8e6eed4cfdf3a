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
  // Where reading starts: the log's current end (it is appended to by each attempt), or its
  // start (a build another thread began in this run, whose steps so far count).
  enum class ReadFrom { end, start };
  // Reads `log_path` as it grows; `say` gets "<elapsed> in: <what it does>" every `interval_s`
  // until destroyed, the elapsed time counted from construction.
  ImageBuildTicker(std::string log_path, double interval_s, std::function<void(const std::string&)> say,
                   ReadFrom from = ReadFrom::end);
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
