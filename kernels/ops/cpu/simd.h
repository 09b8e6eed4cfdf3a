// What the CPU kernels use to get SIMD code without requiring it of the machine.
#pragma once

#if defined(__GNUC__)
#define OPMATRIX_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define OPMATRIX_ALWAYS_INLINE inline
#endif

// An AVX2 clone of the function beside the baseline one, chosen when the library loads. AVX2
// alone does not enable FMA, so no multiply-add is fused: sums stay rounded exactly as the
// baseline code (and torchvision's) rounds them.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define OPMATRIX_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define OPMATRIX_SIMD_CLONES
#endif
