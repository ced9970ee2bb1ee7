/// @file 07_sgemm/epilogue.cuh
/// @brief Chapter 7: how stages 6 to 8 write their results to C (include it in your stage file).
///
/// Every thread of those stages ends with a tile of accumulators and writes them four columns at a
/// time. The rules of the contract (chapters/07_sgemm/stages.cuh) all meet here: alpha and beta,
/// C not read when beta == 0, partial tiles at the right edge, float4 only where rows are aligned.
#pragma once

#include <cuda_runtime.h>

namespace ch07 {

/// C[row][col .. col + 3] = r + beta * C[row][col .. col + 3] for the columns below N, where @p r
/// already holds alpha * acc and @p c_row points at the row. With beta == 0 C is never read (it may
/// hold NaN). With kVec (N % 4 == 0, and col a multiple of 4) c_row + col is 16-byte aligned and
/// col < N means all four columns are inside: one float4 load and one float4 store. Otherwise four
/// scalar accesses, each tested against N.
template <bool kVec>
__device__ __forceinline__ void store_c4(float* c_row, int col, int N, float4 r, float beta)
{
    if constexpr (kVec) {
        if (col >= N) return;
        float4* dst = reinterpret_cast<float4*>(c_row + col);
        if (beta != 0.0f) {
            const float4 old = *dst;
            r.x += beta * old.x, r.y += beta * old.y, r.z += beta * old.z, r.w += beta * old.w;
        }
        *dst = r;
    } else {
        const float v[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            if (col + q < N) c_row[col + q] = beta == 0.0f ? v[q] : v[q] + beta * c_row[col + q];
        }
    }
}

}   // namespace ch07
