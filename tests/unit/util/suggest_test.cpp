#include <gtest/gtest.h>

#include "util/suggest.h"

namespace opmatrix {

TEST(Suggest, EditDistanceCountsInsertDeleteReplace) {
  EXPECT_EQ(edit_distance("torchvision", "torchvision"), 0u);
  EXPECT_EQ(edit_distance("torchvison", "torchvision"), 1u);
  EXPECT_EQ(edit_distance("cuda", "cdua"), 1u);  // a swap is one typo
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(Suggest, ProposesTheClosestCloseEnoughWord) {
  const std::vector<std::string> keys = {"torch", "torchvision", "cuda", "image"};
  EXPECT_EQ(closest_match("torchvison", keys), "torchvision");
  EXPECT_EQ(closest_match("imgae", keys), "image");
  EXPECT_EQ(closest_match("completely_different", keys), "");
  EXPECT_EQ(did_you_mean("cdua", keys), " (did you mean 'cuda'?)");
  EXPECT_EQ(did_you_mean("zzzz", keys), "");
  // Equally close candidates: the one sharing the longer prefix reads as the intended word.
  EXPECT_EQ(closest_match("8.1", {"6.1", "8.0"}), "8.0");
}

}  // namespace opmatrix
