// SharedBuildEngine and ImageLookAhead (images/image_prefetch.h) against a fake engine whose
// builds a test holds and releases, and which records every call: one build per tag, the
// look-ahead's distance, its free-space check, its stop, and what a worker is told. Events are
// ordered with a condition variable (FakeImages::await), never with sleeps.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "images/image_prefetch.h"

namespace opmatrix {

namespace {

constexpr double kBuildSeconds = 42.5;

// The engine's image side only: tags per cell, a set of present tags, builds a test may hold.
// Shared state lives behind a pointer so the test keeps it after handing the engine over.
struct FakeImages {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::string, std::string> tag_of;  // cell id -> planned tag
  std::set<std::string> present;
  std::set<std::string> held;                 // builds of these tags wait for release()
  std::set<std::string> fail_once;            // the first build of these tags fails
  std::map<std::string, int> builds;          // tag -> builds run
  std::map<std::string, int> ensure_calls;    // cell id -> ensure_image calls
  std::map<std::string, int> planned_calls;   // cell id -> planned_image calls
  std::vector<std::string> build_order;       // cell ids, as their builds began
  std::vector<int> furthest_at_build;         // the test's furthest started cell, at each build
  std::atomic<int>* furthest = nullptr;
  int building = 0;
  int most_at_once = 0;

  void release(const std::string& tag) {
    std::lock_guard<std::mutex> lock(mutex);
    held.erase(tag);
    changed.notify_all();
  }
  // Waits (10 s at most, then the test fails) for a condition on this state.
  bool await(const std::function<bool()>& pred) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, std::chrono::seconds(10), pred);
  }
};

class FakeImageEngine : public Engine {
 public:
  explicit FakeImageEngine(std::shared_ptr<FakeImages> images) : Engine(make_config()), images_(std::move(images)) {}

  std::string name() const override { return "podman"; }
  std::optional<std::string> unavailable_reason() override { return std::nullopt; }
  std::string storage_root() override { return "/fake/storage"; }
  std::string planned_image(const Cell& cell) override {
    std::lock_guard<std::mutex> lock(images_->mutex);
    ++images_->planned_calls[cell.id];
    images_->changed.notify_all();
    return images_->tag_of[cell.id];
  }
  std::string image_id(const std::string& tag) override {
    std::lock_guard<std::mutex> lock(images_->mutex);
    return images_->present.count(tag) ? "id-" + tag : "";
  }
  ImageOutcome ensure_image(const Cell& cell, const std::string&, double) override {
    std::unique_lock<std::mutex> lock(images_->mutex);
    ++images_->ensure_calls[cell.id];
    const std::string tag = images_->tag_of[cell.id];
    ImageOutcome out;
    out.tag = tag;
    out.ok = true;
    if (images_->present.count(tag)) {
      images_->changed.notify_all();
      return out;
    }
    ++images_->builds[tag];
    images_->build_order.push_back(cell.id);
    if (images_->furthest) images_->furthest_at_build.push_back(images_->furthest->load());
    images_->most_at_once = std::max(images_->most_at_once, ++images_->building);
    images_->changed.notify_all();
    images_->changed.wait(lock, [&] { return !images_->held.count(tag); });
    --images_->building;
    out.built = true;
    out.seconds = kBuildSeconds;
    if (images_->fail_once.erase(tag)) {
      out.ok = false;
      out.error = "the image build failed (exit 1; see the log)";
    } else {
      images_->present.insert(tag);
    }
    images_->changed.notify_all();
    return out;
  }
  CellPaths paths(const Cell&) const override { return {}; }
  ProcessResult run_step(const std::string&, const Cell&, const StepCommand&) override { return {}; }
  std::string display(const std::string&, const Cell&, const StepCommand&) const override { return ""; }

 private:
  static EngineConfig make_config() {
    EngineConfig c;
    c.kind = "podman";
    c.work_dir = "/tmp/opmatrix-image-prefetch-test";
    return c;
  }
  std::shared_ptr<FakeImages> images_;
};

Cell cell_named(const std::string& id) {
  Cell c;
  c.id = id;
  c.image.containerfile = "containers/pypi.Containerfile";
  return c;
}

class ImagePrefetch : public ::testing::Test {
 protected:
  void SetUp() override {
    images_ = std::make_shared<FakeImages>();
    images_->furthest = &furthest_;
    engine_ = std::make_unique<SharedBuildEngine>(std::make_unique<FakeImageEngine>(images_));
  }

  // Cells c0..c(n-1), each with its own tag t0..t(n-1), none present.
  void make_cells(int n) {
    for (int i = 0; i < n; ++i) {
      cells_.push_back(cell_named("c" + std::to_string(i)));
      images_->tag_of["c" + std::to_string(i)] = "t" + std::to_string(i);
    }
  }
  std::vector<const Cell*> cell_pointers() const {
    std::vector<const Cell*> out;
    for (const auto& c : cells_) out.push_back(&c);
    return out;
  }

  LookAheadSettings settings(int ahead) {
    LookAheadSettings s;
    s.ahead = ahead;
    s.log_path = [](const Cell& c) { return "/tmp/opmatrix-image-prefetch-test/logs/" + c.id + "/image.log"; };
    s.image_timeout = [](const Cell&) { return 60.0; };
    s.storage_need = [](const Cell&) { return 25e9; };
    s.free_bytes = [this](const std::string& path) -> std::optional<double> {
      std::lock_guard<std::mutex> lock(images_->mutex);
      free_asked_at_.push_back(path);
      return free_bytes_;
    };
    s.stop = [this] {
      std::lock_guard<std::mutex> lock(images_->mutex);
      ++stop_polls_;
      images_->changed.notify_all();
      return stop_.load();
    };
    s.say = [this](const std::string& cell, const std::string& line) {
      std::lock_guard<std::mutex> lock(images_->mutex);
      said_.push_back(cell + ": " + line);
      images_->changed.notify_all();
    };
    return s;
  }

  // A worker reaches cells_[i]: the test's own record first, so that the fake never sees the
  // look-ahead ahead of what the test has allowed.
  bool start_cell(ImageLookAhead& la, int i) {
    furthest_ = i;
    return la.cell_starting(cells_[static_cast<std::size_t>(i)]);
  }

  // The look-ahead over all cells_, `ahead` cells ahead, once the first worker has started c0.
  ImageLookAhead& look_ahead_from_first_cell(int ahead) {
    look_ahead_ = std::make_unique<ImageLookAhead>(*engine_, cell_pointers(), settings(ahead));
    start_cell(*look_ahead_, 0);
    return *look_ahead_;
  }

  int stop_polls() {
    std::lock_guard<std::mutex> lock(images_->mutex);
    return stop_polls_;
  }

  bool said(const std::string& piece) {  // call with images_->mutex held (inside await)
    for (const auto& l : said_)
      if (l.find(piece) != std::string::npos) return true;
    return false;
  }

  std::shared_ptr<FakeImages> images_;
  std::unique_ptr<SharedBuildEngine> engine_;
  std::vector<Cell> cells_;
  std::atomic<int> furthest_{-1};
  std::optional<double> free_bytes_ = 100e9;
  std::vector<std::string> free_asked_at_;
  std::atomic<bool> stop_{false};
  int stop_polls_ = 0;
  std::vector<std::string> said_;
  std::unique_ptr<ImageLookAhead> look_ahead_;  // last: it ends before what it uses
};

TEST_F(ImagePrefetch, TwoCellsOfOneTagBuildItOnceAndNeverAtOnce) {
  cells_ = {cell_named("a"), cell_named("b")};
  images_->tag_of = {{"a", "shared"}, {"b", "shared"}};
  images_->held.insert("shared");
  ImageOutcome a, b;
  std::thread first([&] { a = engine_->ensure_image(cells_[0], "/tmp/a.log", 60); });
  ASSERT_TRUE(images_->await([&] { return images_->building == 1; }));
  std::thread second([&] { b = engine_->ensure_image(cells_[1], "/tmp/b.log", 60); });
  // b has reached the engine (asked for its tag, or, were it not shared, begun a build) while
  // a's build is still held.
  ASSERT_TRUE(images_->await([&] { return images_->planned_calls["b"] > 0 || images_->ensure_calls["b"] > 0; }));
  images_->release("shared");
  first.join();
  second.join();
  EXPECT_EQ(images_->builds["shared"], 1);
  EXPECT_EQ(images_->most_at_once, 1);
  EXPECT_TRUE(a.ok && a.built);
  EXPECT_TRUE(b.ok);
  EXPECT_FALSE(b.built);
  EXPECT_EQ(b.tag, "shared");
  ASSERT_EQ(engine_->builds().size(), 1u);
  EXPECT_EQ(engine_->builds()[0].cell_id, "a");
  EXPECT_EQ(engine_->image_waits().size(), 2u);
}

TEST_F(ImagePrefetch, AWorkerWaitsForTheLookAheadsBuildAndIsToldSo) {
  make_cells(2);
  images_->held.insert("t1");
  ImageLookAhead la(*engine_, cell_pointers(), settings(1));
  EXPECT_FALSE(start_cell(la, 0));  // the first cell's image is its worker's own
  ASSERT_TRUE(images_->await([&] { return images_->building == 1; }));
  EXPECT_EQ(images_->build_order, std::vector<std::string>{"c1"});
  EXPECT_TRUE(start_cell(la, 1));  // its log is the look-ahead's, this run's
  const int planned_before = [&] { std::lock_guard<std::mutex> l(images_->mutex); return images_->planned_calls["c1"]; }();
  ImageOutcome got;
  std::thread worker([&] { got = engine_->ensure_image(cells_[1], "/tmp/c1.log", 60); });
  ASSERT_TRUE(images_->await([&] { return images_->planned_calls["c1"] > planned_before; }));
  images_->release("t1");
  worker.join();
  la.finish();
  EXPECT_EQ(images_->ensure_calls["c1"], 1);
  EXPECT_TRUE(got.ok);
  EXPECT_TRUE(got.built);
  EXPECT_EQ(got.acquired_by, "the look-ahead");
  EXPECT_DOUBLE_EQ(got.seconds, kBuildSeconds);
  ASSERT_EQ(engine_->builds().size(), 1u);
  EXPECT_TRUE(engine_->builds()[0].look_ahead);
  std::lock_guard<std::mutex> lock(images_->mutex);
  EXPECT_TRUE(said("c1: image (look-ahead) ... t1"));
  EXPECT_TRUE(said("c1: image (look-ahead) built t1 (42.5 s)"));
}

TEST_F(ImagePrefetch, StaysWithinNImagesAheadOfTheFurthestStartedCell) {
  make_cells(5);
  ImageLookAhead& la = look_ahead_from_first_cell(1);
  ASSERT_TRUE(images_->await([&] { return images_->builds["t1"] == 1 && said("image (look-ahead) built t1"); }));
  // Two polls of stop() after c1's build: the look-ahead has been back at its wait for c2 at
  // least once; had it gone on, the fake would have seen c2's build.
  const int polls = stop_polls();
  ASSERT_TRUE(images_->await([&] { return stop_polls_ >= polls + 2; }));
  EXPECT_EQ(images_->ensure_calls["c2"], 0);
  EXPECT_TRUE(start_cell(la, 1));
  ASSERT_TRUE(images_->await([&] { return images_->builds["t2"] == 1; }));
  EXPECT_TRUE(start_cell(la, 2));
  start_cell(la, 3);
  start_cell(la, 4);
  la.finish();
  ASSERT_EQ(images_->build_order.size(), images_->furthest_at_build.size());
  for (std::size_t i = 0; i < images_->build_order.size(); ++i) {
    const int position = std::stoi(images_->build_order[i].substr(1));
    EXPECT_LE(position - images_->furthest_at_build[i], 1) << images_->build_order[i];
  }
  EXPECT_EQ(images_->ensure_calls["c0"], 0);  // never ahead of the first worker
}

TEST_F(ImagePrefetch, TwoAheadWhenAskedFor) {
  make_cells(4);
  ImageLookAhead& la = look_ahead_from_first_cell(2);
  ASSERT_TRUE(images_->await([&] { return images_->builds["t1"] == 1 && images_->builds["t2"] == 1; }));
  const int polls = stop_polls();
  ASSERT_TRUE(images_->await([&] { return stop_polls_ >= polls + 2; }));
  EXPECT_EQ(images_->ensure_calls["c3"], 0);
  start_cell(la, 1);
  ASSERT_TRUE(images_->await([&] { return images_->builds["t3"] == 1; }));
  la.finish();
}

TEST_F(ImagePrefetch, NoBuildAheadWhenTheStorageLacksTheRoom) {
  make_cells(2);
  free_bytes_ = 10e9;  // the image needs 25e9
  {
    ImageLookAhead la(*engine_, cell_pointers(), settings(1));
    start_cell(la, 0);
    ASSERT_TRUE(images_->await([&] { return said("c1: image (look-ahead): not built ahead"); }));
    EXPECT_FALSE(start_cell(la, 1));
    la.finish();
  }
  EXPECT_EQ(images_->ensure_calls["c1"], 0);
  ASSERT_FALSE(free_asked_at_.empty());
  EXPECT_EQ(free_asked_at_.front(), "/fake/storage");
  bool names_numbers = false;
  for (const auto& l : said_) names_numbers |= l.find("10.0 GB free") != std::string::npos && l.find("25.0 GB") != std::string::npos;
  EXPECT_TRUE(names_numbers);
  // The worker builds it itself.
  const ImageOutcome got = engine_->ensure_image(cells_[1], "/tmp/c1.log", 60);
  EXPECT_TRUE(got.built);
  EXPECT_EQ(got.acquired_by, "");
  EXPECT_EQ(images_->builds["t1"], 1);
}

// PyPI torch 2.0.1's and 2.1.2's images begun at once with 27 GB free: each fits alone, the two
// filled the disk as they committed. The look-ahead counts the image a worker is building.
TEST_F(ImagePrefetch, AnImageIsNotBuiltAheadWhereItFitsOnlyWithoutTheOneBeingBuilt) {
  make_cells(2);
  free_bytes_ = 40e9;  // each needs 25e9: one fits, two do not
  images_->held.insert("t0");
  std::thread worker([&] { engine_->ensure_image(cells_[0], "/tmp/c0.log", 60); });
  ASSERT_TRUE(images_->await([&] { return images_->ensure_calls["c0"] == 1; }));
  {
    ImageLookAhead la(*engine_, cell_pointers(), settings(1));
    start_cell(la, 0);
    ASSERT_TRUE(images_->await([&] { return said("c1: image (look-ahead): not built ahead"); }));
    bool names_both = false;
    for (const auto& l : said_) names_both |= l.find("beside the 25.0 GB of the image being built now") != std::string::npos;
    EXPECT_TRUE(names_both);
    images_->release("t0");
    worker.join();
    la.finish();
  }
  EXPECT_EQ(images_->ensure_calls["c1"], 0);
}

TEST_F(ImagePrefetch, APresentImageIsNotAcquiredAhead) {
  make_cells(3);
  images_->present.insert("t1");
  ImageLookAhead& la = look_ahead_from_first_cell(1);
  ASSERT_TRUE(images_->await([&] { return said("c1: image (look-ahead): t1 present") && images_->builds["t2"] == 1; }));
  EXPECT_EQ(images_->ensure_calls["c1"], 0);
  EXPECT_FALSE(start_cell(la, 1));  // present: free, so c2 was built ahead at once
  la.finish();
}

TEST_F(ImagePrefetch, AStopEndsTheWalk) {
  make_cells(3);
  ImageLookAhead& la = look_ahead_from_first_cell(1);
  ASSERT_TRUE(images_->await([&] { return images_->builds["t1"] == 1; }));
  stop_ = true;
  const int polls = stop_polls();
  ASSERT_TRUE(images_->await([&] { return stop_polls_ > polls; }));  // it has seen the stop
  start_cell(la, 1);  // would make room for c2
  la.finish();
  EXPECT_EQ(images_->ensure_calls["c2"], 0);
}

// The run's second worker (RunState::late_worker) waits on this: not while an image is left to
// build, at once after the last one, and not at all once there is nothing left for it to run.
TEST_F(ImagePrefetch, TheWalkIsOverOnlyOnceNoImageIsLeftToBuild) {
  make_cells(3);
  images_->held.insert("t2");
  ImageLookAhead& la = look_ahead_from_first_cell(2);
  ASSERT_TRUE(images_->await([&] { return images_->builds["t1"] == 1 && images_->building == 1; }));  // t2 held
  std::atomic<bool> give_up{false};
  std::atomic<int> walked{-1};
  std::thread waiter([&] { walked = la.wait_walked([&] { return give_up.load(); }) ? 1 : 0; });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // more than one poll: still waiting
  EXPECT_EQ(walked.load(), -1);
  images_->release("t2");
  waiter.join();
  EXPECT_EQ(walked.load(), 1);
  EXPECT_TRUE(la.wait_walked([] { return false; }));  // over stays over
  la.finish();
}

TEST_F(ImagePrefetch, WaitingForTheWalkEndsWhenTheWaiterGivesUp) {
  make_cells(3);
  images_->held.insert("t1");
  ImageLookAhead& la = look_ahead_from_first_cell(2);
  ASSERT_TRUE(images_->await([&] { return images_->building == 1; }));
  std::atomic<bool> give_up{false};
  std::atomic<int> walked{-1};
  std::thread waiter([&] { walked = la.wait_walked([&] { return give_up.load(); }) ? 1 : 0; });
  give_up = true;  // every cell taken by a worker: no second one is wanted
  waiter.join();
  EXPECT_EQ(walked.load(), 0);
  images_->release("t1");
  la.finish();
}

TEST_F(ImagePrefetch, AFailedLookAheadBuildIsTriedAgainByTheWorker) {
  make_cells(2);
  images_->fail_once.insert("t1");
  ImageLookAhead& la = look_ahead_from_first_cell(1);
  ASSERT_TRUE(images_->await([&] { return said("c1: image (look-ahead) FAILED"); }));
  EXPECT_TRUE(start_cell(la, 1));
  const ImageOutcome got = engine_->ensure_image(cells_[1], "/tmp/c1.log", 60);
  la.finish();
  EXPECT_TRUE(got.ok);
  EXPECT_EQ(got.acquired_by, "");
  EXPECT_EQ(images_->builds["t1"], 2);
  const auto builds = engine_->builds();
  ASSERT_EQ(builds.size(), 2u);
  EXPECT_FALSE(builds[0].ok);
  EXPECT_TRUE(builds[1].ok);
}

// An atlas runtime whose image cannot be built: the first cell's worker tries, fails, and the
// next cells of that image get its failure at once, naming the cell whose log says why.
TEST_F(ImagePrefetch, AFailedWorkerBuildIsNotTriedAgainByTheNextCellsOfTheImage) {
  make_cells(3);
  images_->tag_of["c1"] = images_->tag_of["c2"] = "t0";
  images_->fail_once.insert("t0");
  const ImageOutcome first = engine_->ensure_image(cells_[0], "/tmp/c0.log", 60);
  EXPECT_FALSE(first.ok);
  const ImageOutcome second = engine_->ensure_image(cells_[1], "/tmp/opmatrix-prefetch-c1.log", 60);
  EXPECT_FALSE(second.ok) << "not built again, although a second build would pass (fail_once)";
  EXPECT_NE(second.error.find("the build failed for c0 earlier in this run: not tried again"), std::string::npos)
      << second.error;
  EXPECT_FALSE(engine_->ensure_image(cells_[2], "/tmp/opmatrix-prefetch-c2.log", 60).ok);
  EXPECT_EQ(images_->builds["t0"], 1);
}

// Torch 2.5.1's atlas runtime on a full disk: the first worker's build failed, the look-ahead's
// try for the next cell built it once there was room, and the cells after that must get the
// image, not the worker's remembered failure.
TEST_F(ImagePrefetch, AWorkersFailedBuildIsForgottenOnceTheLookAheadBuildsTheImage) {
  make_cells(3);
  images_->tag_of["c1"] = images_->tag_of["c2"] = "t0";
  images_->fail_once.insert("t0");
  EXPECT_FALSE(engine_->ensure_image(cells_[0], "/tmp/c0.log", 60).ok);
  EXPECT_TRUE(engine_->ensure_image_ahead(cells_[1], "/tmp/opmatrix-prefetch-c1.log", 60).ok);
  const ImageOutcome later = engine_->ensure_image(cells_[2], "/tmp/opmatrix-prefetch-c2.log", 60);
  EXPECT_TRUE(later.ok) << later.error;
  EXPECT_EQ(images_->builds["t0"], 2);
}

}  // namespace

}  // namespace opmatrix
