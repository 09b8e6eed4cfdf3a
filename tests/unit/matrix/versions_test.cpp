#include <utility>

#include <gtest/gtest.h>

#include "matrix/versions.h"
#include "told_apart.h"

namespace opmatrix {

TEST(Versions, AcceptsReleasesDebianAndLocalVersions) {
  testbed::expect_told_apart(is_package_version,
                             {"2.6.0", "1.13.1", "2.11.0+cu130", "1.13.0a0", "2.8.0rc1", "0.21", "2.5.1.post1"},
                             {"", "2", "v2.6.0", "2.6.0;rm -rf /", "2.6.x", "$(id)", "../2.6", "2.6.0 "});
}

TEST(Versions, CudaIsMajorMinorOrNone) {
  testbed::expect_told_apart(is_cuda_version, {"12.4", "none"}, {"12.4.1", "cu124"});
}

TEST(Versions, ArchSyntaxAndKnownList) {
  testbed::expect_told_apart(is_arch_syntax, {"8.0", "9.0a", "10.0f"}, {"sm_80", "80"});
  const auto& known = known_archs();
  EXPECT_NE(std::find(known.begin(), known.end(), "12.0"), known.end());
  EXPECT_EQ(std::find(known.begin(), known.end(), "8.1"), known.end());
}

TEST(Versions, UpstreamPairingFollowsTorchvisionsTable) {
  auto tv = [](const std::string& t) {
    auto p = upstream_torchvision_for(t);
    return p ? std::to_string(p->major) + "." + std::to_string(p->minor) : std::string("?");
  };
  const std::pair<const char*, const char*> pairs[] = {  // torch, its torchvision ("?": none)
      {"1.13.1", "0.14"}, {"2.0.1", "0.15"}, {"2.6.0", "0.21"}, {"2.7.1", "0.22"}, {"2.11.0+cu130", "0.26"}, {"3.0.0", "?"}};
  for (const auto& [torch, torchvision] : pairs) EXPECT_EQ(tv(torch), torchvision) << torch;
}

// PyPI has no torchvision 0.30: pip pairs torch 2.15.0 with 0.29.2, which asks for torch >= 2.14.
// init writes this pair and validate compares with it: one table, no warning about it.
TEST(Versions, PipTorchvisionForATorchWithoutItsOwnIsTheNewestThatAcceptsIt) {
  const std::pair<const char*, const char*> pip_pairs[] = {
      {"2.14.1", "0.29.2"}, {"2.15.0", "0.29.2"}, {"2.5.1", "0.20.1"}, {"2.6.0+cpu", "0.21.0"}};
  for (const auto& [torch, torchvision] : pip_pairs) EXPECT_EQ(pip_torchvision_for(torch).value_or("?"), torchvision) << torch;
  EXPECT_FALSE(pip_torchvision_for("2.99.0").has_value()) << "an unknown torch gets no guess";
  EXPECT_FALSE(pip_torchvision_for("latest").has_value());
  const auto mm = upstream_torchvision_for("2.15.0");
  ASSERT_TRUE(mm.has_value());
  EXPECT_EQ(mm->major * 100 + mm->minor, 29);
}

}  // namespace opmatrix
