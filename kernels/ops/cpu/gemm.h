// A cache-blocked matrix product for the CPU kernels, for where the torch at hand multiplies
// through a slow BLAS (Debian's torch links the reference netlib BLAS, ~1 GFLOP/s in double).
#pragma once

#include <cstdint>

namespace opmatrix::cpu {

// out[M x N] = bias[m] + A[M x K] * B[K x N] (bias may be null: 0), all row-major and dense.
// Runs on torch's intra-op threads; the sums are not in BLAS's order, so results agree with
// it to rounding only.
void gemm_bias(int64_t M, int64_t N, int64_t K, const float* A, const float* B, const float* bias,
               float* out);
void gemm_bias(int64_t M, int64_t N, int64_t K, const double* A, const double* B,
               const double* bias, double* out);

}  // namespace opmatrix::cpu
