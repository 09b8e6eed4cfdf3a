// The order a run takes its cells in beside the image look-ahead (images/look_ahead_order.h):
// Johnson's rule over the cells grouped by the images they wait for, kept only where the
// timeline says it ends sooner.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "images/look_ahead_order.h"

namespace opmatrix {
namespace {

// The 0.16.0 main job from a fresh clone, as measured (seconds): its new images (mmdebstrap
// bases counted apart) and its cells in matrix.yaml's order, each with its time past its image.
struct MainJob {
  std::vector<double> builds{27, 93, 27, 322, 98, 27, 91, 243, 212, 97};
  // 0 bookworm base, 1 debian bookworm, 2 trixie base, 3 debian-cuda, 4 debian-cuda-toolkit,
  // 5 sid base, 6 debian sid, 7 pypi 2.15, 8 pypi 2.5.1, 9 debian trixie
  std::vector<std::string> names{"bookworm", "trixie-cuda", "trixie-toolkit", "sid", "pypi-2.15", "pypi-2.5.1-mismatch",
                                 "boxops-cmake", "boxops-setuptools", "torchscatter", "fbgemm-2.15"};
  std::vector<TimedCell> cells{{106, {0, 1}}, {165, {2, 3}}, {11, {2, 4}}, {245, {5, 6}}, {322, {7}},
                               {175, {8}},    {41, {2, 9}},  {48, {2, 9}}, {240, {2, 9}}, {31, {7}}};
  std::vector<std::string> in(const std::vector<std::size_t>& order) const {
    std::vector<std::string> out;
    for (const auto c : order) out.push_back(names[c]);
    return out;
  }
};

TEST(LookAheadOrder, TheMainJobWaitsLessWithTheQuickImagesFirst) {
  const MainJob job;
  const LookAheadOrder o = order_for_look_ahead(job.builds, job.cells);
  ASSERT_TRUE(o.reordered());
  // In matrix.yaml's order the cells wait for trixie's CUDA image (349 s with its base) after
  // bookworm's 106-s cell; the run measured 1881 s for what this timeline puts at 1787 s.
  EXPECT_DOUBLE_EQ(o.given_order_seconds, 1787);
  EXPECT_DOUBLE_EQ(o.wall_seconds, 1502);
  // First the images that build in less time than their cells take, quickest first (sid's
  // 118 s for a 245-s cell); then the others, the longest cells first. The two cells of the
  // pypi 2.15 image run one after the other, though matrix.yaml puts seven cells between them.
  EXPECT_EQ(job.in(o.order),
            (std::vector<std::string>{"sid", "boxops-cmake", "boxops-setuptools", "torchscatter", "pypi-2.15", "fbgemm-2.15",
                                      "pypi-2.5.1-mismatch", "trixie-cuda", "bookworm", "trixie-toolkit"}));
}

TEST(LookAheadOrder, CellsWhoseImagesAreHereRunFirst) {
  // A present image is built in no time: its cell runs while the builder makes the other's.
  const LookAheadOrder o = order_for_look_ahead({300}, {{200, {0}}, {100, {}}});
  EXPECT_EQ(o.order, (std::vector<std::size_t>{1, 0}));
  EXPECT_DOUBLE_EQ(o.given_order_seconds, 300 + 200 + 100);
  EXPECT_DOUBLE_EQ(o.wall_seconds, 300 + 200);  // the build beside the present image's cell
}

TEST(LookAheadOrder, TheGivenOrderStaysWhereNoOrderEndsSooner) {
  // All images present: nothing to wait for, the matrix's order stands.
  const LookAheadOrder here = order_for_look_ahead({}, {{50, {}}, {10, {}}, {30, {}}});
  EXPECT_FALSE(here.reordered());
  EXPECT_DOUBLE_EQ(here.wall_seconds, 90);
  // One shared base makes the rule's order and the given one end together: the given stands.
  const LookAheadOrder shared = order_for_look_ahead({1000, 1, 1}, {{10, {0, 1}}, {2000, {0, 2}}});
  EXPECT_FALSE(shared.reordered());
  EXPECT_DOUBLE_EQ(shared.wall_seconds, shared.given_order_seconds);
  EXPECT_TRUE(order_for_look_ahead({}, {}).order.empty());
}

// The builder makes images in the order the cells, as they run, first ask for them: the same
// cells in another order wait for other builds.
TEST(LookAhead, TheBuilderFollowsTheCellsOrder) {
  EXPECT_DOUBLE_EQ(look_ahead_wall_seconds({500, 50}, {{100, {0}}, {400, {1}}}), 500 + 100 + 400);
  // The second image is built first now; the first is ready at 550, after the 400-s cell.
  EXPECT_DOUBLE_EQ(look_ahead_wall_seconds({500, 50}, {{400, {1}}, {100, {0}}}), 50 + 500 + 100);
}

}  // namespace
}  // namespace opmatrix
