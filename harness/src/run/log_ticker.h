// While an image builds or a long step runs, a line every `interval_s` saying what it is doing,
// read from its log as it grows (images/image_build_progress.h for images, run/step_progress.h for
// build and test steps): a cold pypi image takes 4-7 minutes, an sdist's compile up to half an
// hour, and one line at the end is not enough for a person watching. Small on purpose: a thread
// that tails the log and a clock.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace opmatrix {

// How a log's lines become the words of the line said: fed every complete line, asked at each tick.
struct LogReader {
  std::function<void(const std::string&)> feed;
  std::function<std::string()> describe;
};
LogReader image_build_reader();  // podman/docker build logs
LogReader step_reader();         // build and test steps' logs

class LogTicker {
 public:
  // Where reading starts: the log's current end (it is appended to by each attempt), or its
  // start (a build another thread began in this run, whose steps so far count).
  enum class ReadFrom { end, start };
  // Reads `log_path` as it grows; `say` gets "<elapsed> in: <what it does>" every `interval_s`
  // until destroyed, the elapsed time counted from construction.
  LogTicker(std::string log_path, double interval_s, std::function<void(const std::string&)> say,
            ReadFrom from = ReadFrom::end, LogReader reader = image_build_reader());
  ~LogTicker();
  LogTicker(const LogTicker&) = delete;
  LogTicker& operator=(const LogTicker&) = delete;

 private:
  void loop(std::uintmax_t offset);

  std::string log_path_;
  double interval_s_;
  std::function<void(const std::string&)> say_;
  LogReader reader_;
  // The destructor wakes the thread at once: a present image costs no wait.
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace opmatrix
