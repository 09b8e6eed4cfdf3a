#include <gtest/gtest.h>

#include "pipeline/image_by_image.h"

namespace opmatrix {

using Groups = std::vector<std::vector<std::string>>;

// The matrix interleaves images (our kernels' cell, then other libraries' cells of the same
// torch further down): under --disk-budget each image is built once and all its cells run
// before it may be removed, in the order the images are first needed.
TEST(GroupCellsByImage, EachImageOnceInTheOrderItIsFirstNeeded) {
  const Groups groups = group_cells_by_image({{"pypi-2.5", "img-a"},
                                              {"trixie-cpu", "img-b"},
                                              {"boxops-pypi-2.5", "img-a"},
                                              {"mismatch", "img-c"},
                                              {"trixie-cmake", "img-b"}});
  EXPECT_EQ(groups, (Groups{{"pypi-2.5", "boxops-pypi-2.5"}, {"trixie-cpu", "trixie-cmake"}, {"mismatch"}}));
}

// The host engine runs cells in this machine's own environment: no image to share or remove.
TEST(GroupCellsByImage, CellsWithoutAnImageRunEachOnTheirOwn) {
  const Groups groups = group_cells_by_image({{"host-a", ""}, {"host-b", ""}});
  EXPECT_EQ(groups, (Groups{{"host-a"}, {"host-b"}}));
}

// The next image is built beside this one's cells only where the budget holds the images kept,
// this one and the next at once, and the disk has room for the next.
TEST(RoomToBuildAhead, TheBudgetHoldsAllThreeAndTheDiskTheNext) {
  EXPECT_EQ(no_room_to_build_ahead({0, 9e9, 9e9, 20e9, 50e9}), "");
  EXPECT_EQ(no_room_to_build_ahead({9e9, 9e9, 9e9, 20e9, 50e9}),
            "it needs about 9.0 GB and the budget of 20.0 GB holds 18.0 GB of images this run keeps")
      << "an image kept from before fills the budget";
  EXPECT_EQ(no_room_to_build_ahead({0, 0, 9e9, 10e9, 50e9}), "") << "this one was there before: not the run's";
  EXPECT_EQ(no_room_to_build_ahead({0, 0, 9e9, 1e6, 50e9}), "it needs about 9.0 GB, over the budget of 1 MB");
  EXPECT_EQ(no_room_to_build_ahead({0, 9e9, 9e9, 20e9, 8e9}), "the storage has 8.0 GB free and it needs about 9.0 GB")
      << "the disk has no room for the next";
  EXPECT_EQ(no_room_to_build_ahead({0, 9e9, 9e9, 20e9, std::nullopt}), "") << "free space unknown holds nothing back";
}

}  // namespace opmatrix
