// Where an op's fake kernel lives when C++ cannot express it, and how a schema says so.
#pragma once

#include "ops/tensor_api.h"

// The Python module that holds the fake kernels C++ cannot express (nms's data-dependent
// output size: kernels/python/opmatrix_ops.py), and how a schema says so to torch. torch then
// accepts that module's torch.library.register_fake (it refuses a Python fake for a C++ op
// without this) and names the module in tracing errors. The call's name depends on the torch
// (kernels/cmake/OpmatrixTorch.cmake reads which one its headers have); the stable ABI has it
// from TORCH_TARGET_VERSION 2.13. OPMATRIX_FAKE_MODULE_DECLARED is 0 where this build has no
// way to say it: there, the op keeps a C++ Meta kernel that refuses (meta/nms_kernel.cpp).
#define OPMATRIX_FAKE_MODULE "opmatrix_ops"
#if defined(OPMATRIX_STABLE_ABI)
#if defined(TORCH_VERSION_2_13_0) && TORCH_FEATURE_VERSION >= TORCH_VERSION_2_13_0
#define OPMATRIX_FAKE_MODULE_DECLARED 1
#define OPMATRIX_DECLARE_FAKE_MODULE(m) (m).set_python_module(OPMATRIX_FAKE_MODULE)
#endif
#else
#include "opmatrix_torch_facts.h"  // generated at configure time from this torch's headers
#if defined(OPMATRIX_TORCH_HAS_SET_PYTHON_MODULE)
#define OPMATRIX_FAKE_MODULE_DECLARED 1
#define OPMATRIX_DECLARE_FAKE_MODULE(m) (m).set_python_module(OPMATRIX_FAKE_MODULE)
#elif defined(OPMATRIX_TORCH_HAS_IMPL_ABSTRACT_PYSTUB)
#define OPMATRIX_FAKE_MODULE_DECLARED 1
#define OPMATRIX_DECLARE_FAKE_MODULE(m) (m).impl_abstract_pystub(OPMATRIX_FAKE_MODULE)
#endif
#endif
#ifndef OPMATRIX_FAKE_MODULE_DECLARED
#define OPMATRIX_FAKE_MODULE_DECLARED 0
#define OPMATRIX_DECLARE_FAKE_MODULE(m) static_cast<void>(m)
#endif
