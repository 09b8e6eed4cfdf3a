#include "images/image_prefetch.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "run/cell_runner.h"
#include "engine/process.h"
#include "images/run_cost.h"
#include "images/run_cost_survey.h"
#include "util/disk_space.h"

namespace fs = std::filesystem;

namespace opmatrix {

namespace {

constexpr const char* kUnknownTagKey = "(a base image still to be made)";
// How often a waiting look-ahead looks at stop_requested(): a signal handler cannot notify a
// condition variable, so the wait wakes by itself.
constexpr std::chrono::milliseconds kStopPoll{200};

double seconds_between(SharedBuildEngine::Clock::time_point a, SharedBuildEngine::Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

SharedBuildEngine::SharedBuildEngine(std::unique_ptr<Engine> inner) : Engine(inner->config()), inner_(std::move(inner)) {}

std::string SharedBuildEngine::key_for(const Cell& cell) {
  const std::string tag = inner_->planned_image(cell);
  return tag.empty() ? kUnknownTagKey : tag;
}

ImageOutcome SharedBuildEngine::ensure_image(const Cell& cell, const std::string& log_path, double timeout_s) {
  const auto start = Clock::now();
  ImageOutcome out = acquire(cell, log_path, timeout_s, false);
  std::lock_guard<std::mutex> lock(mutex_);
  waits_.push_back({cell.id, start, Clock::now()});
  return out;
}

ImageOutcome SharedBuildEngine::ensure_image_ahead(const Cell& cell, const std::string& log_path, double timeout_s) {
  return acquire(cell, log_path, timeout_s, true);
}

ImageOutcome SharedBuildEngine::acquire(const Cell& cell, const std::string& log_path, double timeout_s,
                                        bool look_ahead) {
  const auto called = Clock::now();
  std::string waited_for;  // the other cell whose build of this tag we waited out
  auto finish = [&](ImageOutcome out, const std::string& by) {
    out.acquired_by = by;
    out.waited_seconds = seconds_between(called, Clock::now());
    return out;
  };
  for (;;) {
    const std::string key = key_for(cell);  // outside the lock: podman is asked
    std::unique_lock<std::mutex> lock(mutex_);
    if (!look_ahead) {
      auto done = ahead_.find(cell.id);
      if (done != ahead_.end()) {
        ImageOutcome out = std::move(done->second);
        ahead_.erase(done);
        lock.unlock();
        return finish(std::move(out), "the look-ahead");
      }
    }
    // This cell's own acquisition under way (the look-ahead's for a worker, or the reverse,
    // when the two met at the cell), else another cell's of the same key.
    auto flight = std::find_if(flights_.begin(), flights_.end(),
                               [&](const auto& f) { return f.second.cell_id == cell.id; });
    if (flight == flights_.end()) flight = flights_.find(key);
    if (flight != flights_.end()) {
      const Flight f = flight->second;
      lock.unlock();
      ImageOutcome theirs = f.result.get();
      if (f.cell_id != cell.id) {
        waited_for = f.cell_id;  // the image may be there now: ask again, by a fresh key
        continue;
      }
      // The worker's own build, met by the look-ahead: nothing to keep for anyone.
      if (look_ahead) return theirs;
      if (theirs.ok) {
        lock.lock();
        ahead_.erase(cell.id);  // kept for this very call, which has it now
        lock.unlock();
        return finish(std::move(theirs), "the look-ahead");
      }
      continue;  // the look-ahead's build failed: the cell tries once itself
    }

    if (auto failed = failed_.find(key); failed != failed_.end() && !look_ahead) {
      ImageOutcome out = failed->second.first;
      const std::string first = failed->second.second;
      lock.unlock();
      out.built = false;
      out.error = fmt::format("{} (the build failed for {} earlier in this run: not tried again; its image log has why)",
                              out.error, first);
      std::ofstream(log_path, std::ios::app) << "opmatrix: not built again: " << out.error << "\n";
      return finish(std::move(out), "");
    }
    std::promise<ImageOutcome> promise;
    flights_[key] = {promise.get_future().share(), cell.id, look_ahead};
    lock.unlock();
    const auto start = Clock::now();
    ImageOutcome out;
    try {
      out = inner_->ensure_image(cell, log_path, timeout_s);
    } catch (...) {
      // Waiters must never hang on a build that threw.
      lock.lock();
      flights_.erase(key);
      lock.unlock();
      promise.set_exception(std::current_exception());
      throw;
    }
    lock.lock();
    if (out.built) builds_.push_back({cell.id, out.tag, start, Clock::now(), out.ok, look_ahead});
    flights_.erase(key);
    if (look_ahead && out.ok) ahead_[cell.id] = out;
    if (!look_ahead && !out.ok && !out.process.interrupted) failed_[key] = {out, cell.id};
    // Built after all (the look-ahead's try, once the disk had room again): the image is there
    // for every later cell, whoever failed before.
    if (out.ok) failed_.erase(key);
    lock.unlock();
    promise.set_value(out);
    return finish(std::move(out), waited_for);
  }
}

std::vector<SharedBuildEngine::Build> SharedBuildEngine::builds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return builds_;
}

std::vector<std::string> SharedBuildEngine::cells_acquiring() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [key, flight] : flights_) out.push_back(flight.cell_id);
  return out;
}

std::vector<SharedBuildEngine::ImageWait> SharedBuildEngine::image_waits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waits_;
}

LookAheadSettings default_look_ahead_settings(int ahead, const std::string& results_dir) {
  LookAheadSettings s;
  s.ahead = ahead;
  s.log_path = [results_dir](const Cell& cell) { return step_log_path(results_dir, cell.id, "image"); };
  s.image_timeout = [](const Cell& cell) { return step_timeout(cell, "image"); };
  // As the run's own cost check counts it: the image, and room to commit its largest layer.
  s.storage_need = [](const Cell& cell) { return image_storage_need({image_of_figures("", image_figures_of(cell), "")}); };
  s.free_bytes = [](const std::string& path) -> std::optional<double> {
    if (path.empty()) return std::nullopt;
    if (auto space = disk_space(path)) return space->free_bytes;
    return std::nullopt;
  };
  s.stop = [] { return stop_requested().load(); };
  return s;
}

ImageLookAhead::ImageLookAhead(SharedBuildEngine& engine, std::vector<const Cell*> cells, LookAheadSettings settings)
    : engine_(engine), cells_(std::move(cells)), settings_(std::move(settings)),
      started_(cells_.size(), false), taken_(cells_.size(), false) {
  thread_ = std::thread([this] { walk(); });
}

ImageLookAhead::~ImageLookAhead() { finish(); }

void ImageLookAhead::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool ImageLookAhead::cell_starting(const Cell& cell) {
  bool taken = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < cells_.size(); ++i)
      if (cells_[i]->id == cell.id) {
        started_[i] = true;
        furthest_started_ = std::max(furthest_started_, static_cast<int>(i));
        taken = taken_[i];
      }
  }
  wake_.notify_all();
  return taken;
}

bool ImageLookAhead::wait_walked(const std::function<bool()>& give_up) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!walked_ && !finished_ && !give_up()) wake_.wait_for(lock, kStopPoll);
  return walked_;
}

int ImageLookAhead::built_ahead_locked() const {
  int n = 0;
  for (std::size_t i = static_cast<std::size_t>(furthest_started_ + 1); i < cells_.size(); ++i) n += taken_[i];
  return n;
}

// Workers take cells in order: one at or before the furthest started is theirs, even if its
// worker has not said so yet.
bool ImageLookAhead::passed_locked(std::size_t i) const {
  return started_[i] || static_cast<int>(i) <= furthest_started_;
}

void ImageLookAhead::walk() {
  auto say = [&](const Cell& cell, const std::string& line) {
    if (settings_.say) settings_.say(cell.id, line);
  };
  auto stopping = [&] { return settings_.stop && settings_.stop(); };
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    const Cell& cell = *cells_[i];
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Ahead of the workers, so not before the first of them starts: the first cell's image
      // is its own worker's to build.
      while (!finished_ && !stopping() && !passed_locked(i) &&
             (furthest_started_ < 0 || built_ahead_locked() >= settings_.ahead))
        wake_.wait_for(lock, kStopPoll);
      if (finished_ || stopping()) return;
      if (passed_locked(i)) continue;  // a worker got there first: it acquires the image itself
    }
    // A present image costs nothing ahead; the worker finds it in a moment.
    const std::string tag = engine_.inner().planned_image(cell);
    if (!tag.empty() && !engine_.inner().image_id(tag).empty()) {
      say(cell, "image (look-ahead): " + tag + " present, nothing to build ahead");
      continue;
    }
    const std::string root = engine_.storage_root();
    const double need = settings_.storage_need ? settings_.storage_need(cell) : 0;
    // An image a worker is building beside it takes its own room as it commits: two CUDA images
    // begun at once with 27 GB free filled the disk (each needs its size and twice its largest
    // layer for a moment, and neither had taken any when the other looked).
    double beside = 0;
    for (const auto& id : engine_.cells_acquiring())
      for (const Cell* other : cells_)
        if (other->id == id && other->id != cell.id && settings_.storage_need) beside += settings_.storage_need(*other);
    const std::optional<double> free = settings_.free_bytes ? settings_.free_bytes(root) : std::nullopt;
    if (free && *free <= need + beside) {
      say(cell, fmt::format("image (look-ahead): not built ahead: {} storage {} has {} free, this image needs about "
                            "{}{}; the cell builds it itself when it starts",
                            engine_.name(), root, human_bytes(*free), human_bytes(need),
                            beside > 0 ? fmt::format(" beside the {} of the image being built now", human_bytes(beside))
                                       : std::string()));
      continue;
    }
    const std::string log = settings_.log_path(cell);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (finished_ || stopping()) return;
      if (passed_locked(i)) continue;
      taken_[i] = true;
      // Under the lock, so that a worker starting this cell sees its log folder as this run's:
      // the previous run's image log goes; the build appends to a fresh one.
      std::error_code ec;
      fs::create_directories(fs::path(log).parent_path(), ec);
      fs::remove(log, ec);
    }
    say(cell, fmt::format("image (look-ahead) ... {}", tag.empty() ? "(its base image first)" : tag));
    ImageOutcome out;
    try {
      out = engine_.ensure_image_ahead(cell, log, settings_.image_timeout ? settings_.image_timeout(cell) : 3600);
    } catch (const std::exception& e) {
      out.error = e.what();
    }
    if (!out.ok)
      say(cell, fmt::format("image (look-ahead) FAILED: {} (the cell tries again itself)",
                            out.error.empty() ? "no reason given" : out.error));
    else
      say(cell, fmt::format("image (look-ahead) {} {} ({:.1f} s)", out.built ? "built" : "present", out.tag,
                            out.seconds));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    walked_ = true;
  }
  wake_.notify_all();
}

}  // namespace opmatrix
