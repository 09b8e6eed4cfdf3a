#include "run/log_ticker.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "images/image_build_progress.h"
#include "run/step_progress.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

std::uintmax_t size_of(const std::string& path) {
  std::error_code ec;
  const auto n = fs::file_size(path, ec);
  return ec ? 0 : n;
}

std::string elapsed_words(double s) {
  const long whole = static_cast<long>(s);
  return whole < 60 ? fmt::format("{} s", whole) : fmt::format("{} min {:02} s", whole / 60, whole % 60);
}

}  // namespace

LogReader image_build_reader() {
  auto progress = std::make_shared<ImageBuildProgress>();
  return {[progress](const std::string& line) { feed_build_line(*progress, line); },
          [progress] { return describe_build_progress(*progress); }};
}

LogReader step_reader() {
  auto progress = std::make_shared<StepProgress>();
  return {[progress](const std::string& line) { feed_step_line(*progress, line); },
          [progress] { return describe_step_progress(*progress); }};
}

LogTicker::LogTicker(std::string log_path, double interval_s, std::function<void(const std::string&)> say,
                     ReadFrom from, LogReader reader)
    : log_path_(std::move(log_path)), interval_s_(interval_s), say_(std::move(say)), reader_(std::move(reader)) {
  const std::uintmax_t offset = from == ReadFrom::start ? 0 : size_of(log_path_);
  thread_ = std::thread([this, offset] { loop(offset); });
}

LogTicker::~LogTicker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LogTicker::loop(std::uintmax_t offset) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto next_say = start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(interval_s_));
  std::string partial;  // a line the build has not finished writing yet
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) return;
    }
    const std::uintmax_t size = size_of(log_path_);
    if (size > offset) {
      std::ifstream in(log_path_, std::ios::binary);
      in.seekg(static_cast<std::streamoff>(offset));
      std::string chunk(static_cast<std::size_t>(size - offset), '\0');
      in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      chunk.resize(static_cast<std::size_t>(in.gcount()));
      offset += chunk.size();
      partial += chunk;
      for (std::size_t nl; (nl = partial.find('\n')) != std::string::npos; partial.erase(0, nl + 1))
        reader_.feed(partial.substr(0, nl));
    }
    if (clock::now() < next_say) continue;
    next_say += std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(interval_s_));
    const std::string what = reader_.describe();
    say_(fmt::format("{} in: {}", elapsed_words(std::chrono::duration<double>(clock::now() - start).count()),
                     what.empty() ? "no output yet" : what));
  }
}

}  // namespace opmatrix
