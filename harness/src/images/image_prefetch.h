// A pipelined cold run: while a cell compiles (CPU-bound), the images of the next cells are
// acquired (mostly network-bound pip and apt downloads), so a cold run's wall time comes near
// max(downloads, compiles) instead of their sum.
//
// Two parts. SharedBuildEngine wraps the run's engine so that one image tag is acquired by one
// caller at a time and never twice: a worker whose image the look-ahead is building waits for
// that build, and two cells of one image (with --jobs > 1) share one build. ImageLookAhead is
// the one background thread that walks the cells about to run and acquires their images
// through it, a bounded distance ahead of the workers.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "matrix/model.h"
#include "engine/engine.h"

namespace opmatrix {

class SharedBuildEngine : public Engine {
 public:
  using Clock = std::chrono::steady_clock;

  // One image acquisition that built (or pulled) something, failed or not.
  struct Build {
    std::string cell_id;
    std::string tag;
    Clock::time_point start, end;
    bool ok = false;
    bool look_ahead = false;
  };
  // One ensure_image call of a worker: from asking to having the image in hand.
  struct ImageWait {
    std::string cell_id;
    Clock::time_point start, end;
  };

  explicit SharedBuildEngine(std::unique_ptr<Engine> inner);

  // Workers' calls. A cell whose image the look-ahead already acquired gets that outcome
  // (acquired_by "the look-ahead"); one whose image the look-ahead is building waits for it;
  // a failed look-ahead build is tried again here, as the cell would have without it (the
  // failure may come from running beside a compile: memory, disk). A build a worker itself saw
  // fail is not tried again in this run: the next cells of that image get its failure, naming the
  // cell whose log has it (an atlas runtime whose image cannot be built is one build, not 17).
  ImageOutcome ensure_image(const Cell& cell, const std::string& log_path, double timeout_s) override;
  // The look-ahead's calls: the outcome is kept for the cell's worker when it is a success.
  ImageOutcome ensure_image_ahead(const Cell& cell, const std::string& log_path, double timeout_s);

  std::vector<Build> builds() const;
  std::vector<ImageWait> image_waits() const;
  // The cells whose image is being acquired now (by a worker or the look-ahead).
  std::vector<std::string> cells_acquiring() const;
  Engine& inner() { return *inner_; }

  std::string name() const override { return inner_->name(); }
  std::optional<std::string> unavailable_reason() override { return inner_->unavailable_reason(); }
  std::string planned_image(const Cell& cell) override { return inner_->planned_image(cell); }
  std::string image_id(const std::string& tag) override { return inner_->image_id(tag); }
  std::optional<double> image_size(const std::string& tag) override { return inner_->image_size(tag); }
  bool remove_image(const std::string& tag) override { return inner_->remove_image(tag); }
  int remove_unused_images_since(std::int64_t since) override { return inner_->remove_unused_images_since(since); }
  std::string storage_root() override { return inner_->storage_root(); }
  CellPaths paths(const Cell& cell) const override { return inner_->paths(cell); }
  ProcessResult run_step(const std::string& image, const Cell& cell, const StepCommand& cmd) override {
    return inner_->run_step(image, cell, cmd);
  }
  std::string display(const std::string& image, const Cell& cell, const StepCommand& cmd) const override {
    return inner_->display(image, cell, cmd);
  }

 private:
  struct Flight {
    std::shared_future<ImageOutcome> result;
    std::string cell_id;
    bool look_ahead = false;
  };

  ImageOutcome acquire(const Cell& cell, const std::string& log_path, double timeout_s, bool look_ahead);
  // What serialises acquisitions: the planned tag. While it is unknown (a base image is still
  // to be made), every such cell shares one key rather than its own id: two cells of one suite
  // would otherwise run mmdebstrap for the same base at once. The key is computed again after
  // each wait, so once the base exists they part by tag.
  std::string key_for(const Cell& cell);

  std::unique_ptr<Engine> inner_;
  mutable std::mutex mutex_;
  std::map<std::string, Flight> flights_;        // by key
  std::map<std::string, ImageOutcome> ahead_;    // by cell id: acquired by the look-ahead, not yet asked for
  std::map<std::string, std::pair<ImageOutcome, std::string>> failed_;  // by key: a worker's failed build, its cell
  std::vector<Build> builds_;
  std::vector<ImageWait> waits_;
};

struct LookAheadSettings {
  // Images built ahead of the furthest cell a worker has started (present images are free).
  int ahead = 1;
  // Where a cell's image log goes (the cell runner's logs/<cell>/image.log) and its time limit.
  std::function<std::string(const Cell&)> log_path;
  std::function<double(const Cell&)> image_timeout;
  // Bytes the engine's storage needs to build this cell's image, and the free bytes at a path
  // (nullopt: unknown, which never holds a build back, as in the run's own cost check).
  std::function<double(const Cell&)> storage_need;
  std::function<std::optional<double>(const std::string&)> free_bytes;
  std::function<bool()> stop;  // true: end at once
  std::function<void(const std::string& cell, const std::string& line)> say;
};

// The defaults for a real run: measured image sizes (images/run_cost.h), statvfs, stop_requested().
LookAheadSettings default_look_ahead_settings(int ahead, const std::string& results_dir);

class ImageLookAhead {
 public:
  // `cells`: those the workers will really run (not cached, not skipped), in their order.
  // Starts the thread at once.
  ImageLookAhead(SharedBuildEngine& engine, std::vector<const Cell*> cells, LookAheadSettings settings);
  ~ImageLookAhead();
  ImageLookAhead(const ImageLookAhead&) = delete;
  ImageLookAhead& operator=(const ImageLookAhead&) = delete;

  // A worker starts this cell: the look-ahead leaves it alone from now on. True when the
  // look-ahead already began acquiring its image, i.e. its image log was written in this run.
  bool cell_starting(const Cell& cell);
  // Ends the walk (a build under way finishes first) and joins the thread.
  void finish();
  // Waits until the walk has passed every cell (no image is left for it to build; a worker may
  // still be building its own cell's), or until give_up() says to stop waiting, asked every
  // 200 ms. True: the walk is over.
  bool wait_walked(const std::function<bool()>& give_up);

 private:
  void walk();
  int built_ahead_locked() const;
  bool passed_locked(std::size_t i) const;

  SharedBuildEngine& engine_;
  std::vector<const Cell*> cells_;
  LookAheadSettings settings_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<bool> started_;  // by a worker
  std::vector<bool> taken_;    // by the look-ahead (a build started)
  int furthest_started_ = -1;
  bool finished_ = false;
  bool walked_ = false;
  std::thread thread_;
};

}  // namespace opmatrix
