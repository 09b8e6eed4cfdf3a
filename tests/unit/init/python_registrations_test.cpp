#include <gtest/gtest.h>

#include "init/python_registrations.h"

namespace opmatrix {

TEST(PythonRegistrations, DefineCustomOpAndTheDecorator) {
  const auto r = find_python_registrations(R"src(
import torch
from torch.library import custom_op

torch.library.define("mylib::sin(Tensor x) -> Tensor")
torch.library.define("mylib::cos", "(Tensor x) -> Tensor")
numpy_sin = torch.library.custom_op("mylib::numpy_sin", mutates_args=())(_numpy_sin)

@torch.library.custom_op("mylib::scale", mutates_args=())
def scale(x: torch.Tensor, s: float) -> torch.Tensor:
    """Example: torch.library.define("doc::not_a_comment(Tensor x) -> Tensor")"""
    return x * s

@custom_op(
    "other::add", mutates_args=())
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + y

# torch.library.define("commented::out(Tensor x) -> Tensor")
@torch.library.register_fake("mylib::scale")
def _(x, s):
    return torch.empty_like(x)
)src");
  std::vector<std::string> got;
  for (const auto& op : r.ops) got.push_back(op.ns + "::" + op.name + " " + op.schema);
  EXPECT_EQ(got, (std::vector<std::string>{"mylib::sin sin(Tensor x) -> Tensor", "mylib::cos cos(Tensor x) -> Tensor",
                                           "mylib::numpy_sin ", "mylib::scale ", "other::add "}));
  EXPECT_EQ(r.namespaces, (std::vector<std::string>{"mylib", "other"}));
}

TEST(PythonRegistrations, OtherDefinesAreNotOps) {
  const auto r = find_python_registrations("def define(x):\n    pass\nlib.define(\"name(Tensor x) -> Tensor\")\n");
  EXPECT_TRUE(r.ops.empty());
}

}  // namespace opmatrix
