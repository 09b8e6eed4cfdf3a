// The one table of import names to PyPI distributions, read by init and the tests check alike.
#include <gtest/gtest.h>

#include "util/python_distributions.h"

namespace opmatrix {

TEST(PythonDistributions, AnImportNameGivesTheDistributionToInstall) {
  EXPECT_EQ(distribution_of("cv2").distribution, "opencv-python-headless");
  EXPECT_EQ(distribution_of("PIL.Image").distribution, "pillow");
  EXPECT_EQ(distribution_of("yaml").distribution, "pyyaml");
  EXPECT_EQ(distribution_of("sklearn.metrics").distribution, "scikit-learn");
  EXPECT_EQ(distribution_of("google.protobuf.message").module, "google.protobuf");
  EXPECT_EQ(distribution_of("google.protobuf.message").distribution, "protobuf");
  EXPECT_EQ(distribution_of("dateutil.parser").distribution, "python-dateutil");
  EXPECT_EQ(distribution_of("torch.testing._internal.common_utils").distribution, "expecttest");
  // Not in the table: the module's top name; a pytest plugin's module its distribution's name.
  EXPECT_EQ(distribution_of("scipy.ndimage").distribution, "scipy");
  EXPECT_EQ(distribution_of("scipy.ndimage").module, "scipy");
  EXPECT_EQ(distribution_of("pytest_cov.plugin").distribution, "pytest-cov");
  EXPECT_EQ(known_distribution("numpy"), nullptr);
}

TEST(PythonDistributions, ARequirementOnAnyDistributionOfTheModuleProvidesIt) {
  EXPECT_TRUE(provided_by("cv2", {"numpy", "opencv-python>=4.5; python_version >= '3.8'"}));
  EXPECT_TRUE(provided_by("cv2", {"OpenCV_Contrib_Python"}));
  EXPECT_TRUE(provided_by("yaml", {"PyYAML==6.0"}));
  EXPECT_TRUE(provided_by("scipy", {"scipy"}));
  EXPECT_FALSE(provided_by("cv2", {"numpy", "opencv"}));
  EXPECT_FALSE(provided_by("scipy", {}));
  EXPECT_EQ(requirement_name("  Foo_Bar.baz[extra]>=1"), "foo-bar-baz");
  EXPECT_EQ(normalised_distribution("Pillow"), "pillow");
}

}  // namespace opmatrix
