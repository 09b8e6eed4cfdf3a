// The `fake-device` check: each op (and torchvision's) on fake CUDA tensors under
// FakeTensorMode, in a CUDA torch: no GPU needed to catch device-propagation errors.
#include "checks/script/script_step.h"

namespace opmatrix {

namespace {

const bool kRegistered = (register_script_check(250, {"fake-device", "fake_device.py", "", 600, StepWhen::built,
                              "each op (and torchvision's) on fake CUDA tensors under FakeTensorMode: no GPU needed"},
                             {"fake-device", {"fake-device"}, "script_checks", CheckPer::op,
                              "in a CUDA torch, each op's fake kernel on fake CUDA inputs gives a CUDA output of the "
                              "real kernel's shape and dtype",
                              "Unhandled FakeTensor Device Propagation for torchvision.deform_conv2d.default, found two "
                              "different devices cuda:0, cpu",
                              {}, true, false, {}, true, true, Weighs::limits,
                              "fake CUDA tensors not checked (this torch needs a GPU driver for them)",
                              {"fake-device", "its fake kernel on fake CUDA tensors (CUDA torch only)", {}, "on fake CUDA tensors"}}),
                          true);

}  // namespace

}  // namespace opmatrix
