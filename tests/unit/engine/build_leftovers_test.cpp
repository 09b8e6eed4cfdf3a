#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "engine/build_leftovers.h"

namespace opmatrix {

namespace {
// Shaped as podman 4.3 prints `ps -a --external --format json` (fields trimmed): a stopped
// build's two working containers (on the base, and on its first intermediate image), a
// container `podman run` made, and an older working container.
const char* kPs = R"([
  {"Command": ["buildah"], "Id": "2911c2", "Image": "localhost/opmatrix-base:trixie",
   "ImageID": "8bcd9d", "Names": ["opmatrix-base-working-container"], "State": "storage", "Created": 1795807072},
  {"Command": ["buildah"], "Id": "f26d5a", "Image": "docker.io/library/f78015-tmp:latest",
   "ImageID": "f78015", "Names": ["f78015c1a7e0-working-container"], "State": "storage", "Created": 1795807073},
  {"Command": ["sleep", "60"], "Id": "aa11bb", "ImageID": "8bcd9d", "Names": ["opmatrix-cell-build-1"],
   "State": "exited", "Created": 1795807080},
  {"Command": ["buildah"], "Id": "0ld000", "ImageID": "77aa00", "Names": ["0ld-working-container"],
   "State": "storage", "Created": 1795800000}
])";
}  // namespace

TEST(BuildLeftovers, WorkingContainersSinceTheBuildBegan) {
  const auto left = build_leftovers(kPs, 1795807070);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].container_id, "2911c2");
  EXPECT_EQ(left[0].image_id, "8bcd9d");
  EXPECT_EQ(left[1].container_id, "f26d5a");
  EXPECT_EQ(left[1].image_id, "f78015");
}

TEST(BuildLeftovers, OlderOnesAndRunContainersStay) {
  EXPECT_TRUE(build_leftovers(kPs, 1795807074).empty());  // all three working containers are older
  EXPECT_EQ(build_leftovers(kPs, 0).size(), 3u);          // never a container podman runs
}

TEST(BuildLeftovers, NothingToFind) {
  EXPECT_TRUE(build_leftovers("[]", 0).empty());
}

TEST(BuildLeftovers, NotJsonIsAnError) {
  EXPECT_THROW(build_leftovers("Error: unknown flag: --external", 0), std::runtime_error);
  EXPECT_THROW(build_leftovers(R"({"Id": "x"})", 0), std::runtime_error);
}

// `podman images -a --filter dangling=true --format json` (fields trimmed): a PyPI runtime image's
// build stage made during the run, an older one, and one a container still stands on.
TEST(UnusedImagesSince, StagesMadeSinceThenThatNoContainerUses) {
  const char* images = R"([
    {"Id": "d652e46ca7cc", "Created": 1795809604, "Containers": 0, "Size": 5741715219},
    {"Id": "30a74278ec12", "Created": 1795807395, "Containers": 0, "Size": 1200436203},
    {"Id": "f9ed30226e2e", "Created": 1795809662, "Containers": 1, "Size": 237303254}
  ])";
  EXPECT_EQ(unused_images_since(images, 1795809000), std::vector<std::string>{"d652e46ca7cc"});
  EXPECT_EQ(unused_images_since(images, 0), (std::vector<std::string>{"d652e46ca7cc", "30a74278ec12"}));
  EXPECT_TRUE(unused_images_since("[]", 0).empty());
  EXPECT_THROW(unused_images_since("Error: no such filter", 0), std::runtime_error);
}

}  // namespace opmatrix
