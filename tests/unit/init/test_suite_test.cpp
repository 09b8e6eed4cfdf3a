// What `opmatrix init` proposes as test_requires from a library's suite: every test file and
// conftest.py read, each distribution with the files that import it; the standard library, the
// library's own modules and the suite's, torch, pytest and its declared requirements left out.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "init/python_stdlib.h"
#include "init/test_suite.h"
#include "temp_folder.h"
#include "testbed.h"
#include "told_apart.h"

namespace opmatrix {

namespace {

std::vector<std::string> names(const TestSuite& s) {
  return testbed::members_of(s.requires, &TestRequirement::requirement);
}

const TestRequirement* find(const TestSuite& s, const std::string& requirement) {
  for (const auto& r : s.requires)
    if (r.requirement == requirement) return &r;
  return nullptr;
}

}  // namespace

// The detection library measured: 53 files; OpenCV, scipy and onnx imported far from the first
// files, each test file read.
TEST(InitTestSuite, EveryTestFileIsReadAndEachDistributionNamesItsFiles) {
  TempFolder dir;
  dir.write("setup.py", "from setuptools import setup\nsetup(name='detlib', packages=['detlib'],\n"
                        "      install_requires=['numpy>=1.20', 'pyyaml'])\n");
  dir.write("detlib/__init__.py", "");
  for (int i = 0; i < 45; ++i)
    dir.write(fmt::format("tests/test_plain_{:02}.py", i), "import os\nimport numpy as np\nimport detlib\n");
  for (int i = 0; i < 5; ++i) dir.write(fmt::format("tests/test_vis_{}.py", i), "import cv2, typing\nfrom detlib import ops\n");
  dir.write("tests/sub/test_metrics.py", "import json\nfrom scipy.optimize import linear_sum_assignment\n\n"
                                         "class TestMetrics:\n    def test_match(self):\n        pass\n");
  dir.write("tests/sub/test_export.py", "import onnx\nimport onnxruntime as ort  # and a comment: import fake\n"
                                        "'''import notreal'''\nfrom . import helpers\nfrom helpers import make\n");
  dir.write("tests/sub/helpers.py", "import notproposed\n");  // no test file: not read, and the suite's own
  dir.write("tests/conftest.py", "import pytest\nimport torch\nfrom torch.testing._internal.common_utils import TestCase\n"
                                 "import yaml\nfrom PIL import Image\nimport pytest_benchmark\n");
  const TestSuite s = find_test_suite(dir.path, {"detlib"});
  EXPECT_EQ(s.folder, "tests");
  EXPECT_EQ(s.files, 52);
  EXPECT_EQ(names(s), (std::vector<std::string>{"expecttest", "pillow", "pytest-benchmark", "onnx", "onnxruntime", "scipy",
                                                "opencv-python-headless"}));
  const TestRequirement* cv = find(s, "opencv-python-headless");
  ASSERT_TRUE(cv);
  EXPECT_EQ(cv->module, "cv2");
  EXPECT_EQ(cv->files.size(), 5u);
  EXPECT_EQ(cv->why, "cv2 in tests/test_vis_0.py, tests/test_vis_1.py, tests/test_vis_2.py and 2 more");
  EXPECT_EQ(find(s, "expecttest")->why, "torch.testing._internal (which imports expecttest) in tests/conftest.py");
  EXPECT_EQ(find(s, "scipy")->why, "scipy in tests/sub/test_metrics.py");
}

// What the library's own requirements bring (setup.cfg, pyproject.toml, its test files) needs no
// test_requires, whichever of a module's distributions it names.
TEST(InitTestSuite, WhatItsOwnRequirementsBringIsLeftOut) {
  TempFolder dir;
  dir.write("pyproject.toml", "[project]\nname = 'x'\ndependencies = [\"opencv-contrib-python>=4\", 'scipy']\n"
                              "[project.optional-dependencies]\ntest = [\"onnx\"]\n");
  dir.write("setup.cfg", "[options]\ninstall_requires =\n    einops\n    timm>=0.9\n");
  dir.write("requirements-test.txt", "# for the tests\n-r requirements.txt\nscikit-image\n");
  dir.write("test/test_all.py", "import cv2\nimport scipy\nimport onnx\nimport einops\nimport timm\nimport skimage\n"
                                "import sklearn\n\n\ndef test_all():\n    pass\n");
  const TestSuite s = find_test_suite(dir.path);
  EXPECT_EQ(names(s), std::vector<std::string>{"scikit-learn"});
}

// fused-ssim's tests/: test_3D.py and test.py are scripts run by hand (`if __name__ ==
// "__main__":`), no test function or class: pytest collects nothing, so init proposes no suite.
TEST(InitTestSuite, AFolderOfScriptsIsNoSuite) {
  TempFolder dir;
  dir.write("tests/test_3D.py", "import torch\n\n\ndef gaussian(size, sigma):\n    return size\n\n\n"
                                "if __name__ == \"__main__\":\n    print(gaussian(11, 1.5))\n");
  EXPECT_EQ(find_test_suite(dir.path).folder, "");
  dir.write("tests/test_fast.py", "async def test_runs():\n    pass\n");
  EXPECT_EQ(find_test_suite(dir.path).folder, "tests");
}

TEST(InitTestSuite, TheStandardLibraryIsKnownByItsTopNames) {
  testbed::expect_told_apart(is_stdlib_module, {"os", "unittest", "__future__", "distutils"}, {"numpy", ""});
}

}  // namespace opmatrix
