// The GotoBLAS layout, small: B is packed per (depth block, column block) into panels of NR
// columns, and a micro-tile of MR x NR outputs lives in registers while it runs over the
// depth block; work items are column blocks, so each thread packs its own B.
#include "ops/cpu/gemm.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "ops/cpu/simd.h"
#include "ops/tensor_api.h"

namespace opmatrix::cpu {
namespace {

constexpr int64_t kMR = 4;    // rows of a micro-tile
constexpr int64_t kKC = 256;  // depth of a packed block
constexpr int64_t kNC = 128;  // columns of a work item (its packed B: kKC x kNC, in L2)

template <typename T>
struct Simd {
  typedef T Vec __attribute__((vector_size(32)));
  static constexpr int64_t kLanes = 32 / sizeof(T);
  static constexpr int64_t kNR = 2 * kLanes;  // columns of a micro-tile: two vectors
};

// packed[q][k][c] = B[p0 + k][j0 + q * NR + c], zero past the last column.
template <typename T>
void pack_b(const T* B, int64_t N, int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* packed) {
  constexpr int64_t NR = Simd<T>::kNR;
  for (int64_t q = 0; q * NR < nc; ++q) {
    const int64_t cols = std::min(NR, nc - q * NR);
    T* dst = packed + q * kc * NR;
    for (int64_t k = 0; k < kc; ++k, dst += NR) {
      const T* src = B + (p0 + k) * N + j0 + q * NR;
      std::memcpy(dst, src, cols * sizeof(T));
      std::fill(dst + cols, dst + NR, T(0));
    }
  }
}

// out[r][c] += sum_k a[r * lda + k] * panel[k][c] for r < rows, c < cols.
template <typename T>
OPMATRIX_ALWAYS_INLINE void micro_tile(int64_t kc, const T* a, int64_t lda, const T* panel, T* out,
                                       int64_t ldo, int64_t rows, int64_t cols) {
  using Vec = typename Simd<T>::Vec;
  constexpr int64_t L = Simd<T>::kLanes, NR = Simd<T>::kNR;
  const T* row[kMR];
  for (int64_t r = 0; r < kMR; ++r) row[r] = a + std::min(r, rows - 1) * lda;  // spare rows: discarded
  Vec acc[kMR][2] = {};
  for (int64_t k = 0; k < kc; ++k) {
    Vec b0, b1;
    std::memcpy(&b0, panel + k * NR, sizeof b0);
    std::memcpy(&b1, panel + k * NR + L, sizeof b1);
    for (int64_t r = 0; r < kMR; ++r) {
      const T x = row[r][k];
      acc[r][0] += x * b0;
      acc[r][1] += x * b1;
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    T lanes[NR];
    std::memcpy(lanes, &acc[r][0], sizeof acc[r][0]);
    std::memcpy(lanes + L, &acc[r][1], sizeof acc[r][1]);
    for (int64_t c = 0; c < cols; ++c) out[r * ldo + c] += lanes[c];
  }
}

// One column block [j0, j0 + nc) of the product, bias first.
template <typename T>
OPMATRIX_ALWAYS_INLINE void column_block_impl(int64_t M, int64_t N, int64_t K, const T* A,
                                              const T* B, const T* bias, T* out, int64_t j0,
                                              int64_t nc, T* packed) {
  constexpr int64_t NR = Simd<T>::kNR;
  for (int64_t m = 0; m < M; ++m) std::fill(out + m * N + j0, out + m * N + j0 + nc, bias ? bias[m] : T(0));
  for (int64_t p0 = 0; p0 < K; p0 += kKC) {
    const int64_t kc = std::min(kKC, K - p0);
    pack_b(B, N, p0, kc, j0, nc, packed);
    for (int64_t i0 = 0; i0 < M; i0 += kMR) {
      const int64_t rows = std::min(kMR, M - i0);
      for (int64_t q = 0; q * NR < nc; ++q) {
        micro_tile(kc, A + i0 * K + p0, K, packed + q * kc * NR, out + i0 * N + j0 + q * NR, N,
                   rows, std::min(NR, nc - q * NR));
      }
    }
  }
}

OPMATRIX_SIMD_CLONES void column_block(int64_t M, int64_t N, int64_t K, const float* A,
                                       const float* B, const float* bias, float* out, int64_t j0,
                                       int64_t nc, float* packed) {
  column_block_impl(M, N, K, A, B, bias, out, j0, nc, packed);
}
OPMATRIX_SIMD_CLONES void column_block(int64_t M, int64_t N, int64_t K, const double* A,
                                       const double* B, const double* bias, double* out,
                                       int64_t j0, int64_t nc, double* packed) {
  column_block_impl(M, N, K, A, B, bias, out, j0, nc, packed);
}

template <typename T>
void gemm_bias_impl(int64_t M, int64_t N, int64_t K, const T* A, const T* B, const T* bias, T* out) {
  const int64_t blocks = (N + kNC - 1) / kNC;
  api::parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
    constexpr int64_t NR = Simd<T>::kNR;
    std::unique_ptr<T[]> packed(new T[kKC * ((kNC + NR - 1) / NR) * NR]);
    for (int64_t b = begin; b < end; ++b) {
      const int64_t j0 = b * kNC;
      column_block(M, N, K, A, B, bias, out, j0, std::min(kNC, N - j0), packed.get());
    }
  });
}

}  // namespace

void gemm_bias(int64_t M, int64_t N, int64_t K, const float* A, const float* B, const float* bias,
               float* out) {
  gemm_bias_impl(M, N, K, A, B, bias, out);
}
void gemm_bias(int64_t M, int64_t N, int64_t K, const double* A, const double* B,
               const double* bias, double* out) {
  gemm_bias_impl(M, N, K, A, B, bias, out);
}

}  // namespace opmatrix::cpu
