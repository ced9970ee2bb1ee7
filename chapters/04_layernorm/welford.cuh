/// @file 04_layernorm/welford.cuh
/// @brief Welford's running mean and variance, and how two partial results merge: the
/// building blocks of chapter 4 from stage 3 on.
///
/// A running state (count n, mean, m2 = sum of squared deviations from the mean) absorbs one value
/// at a time without ever forming sum(x^2), so no large numbers cancel:
///     n += 1;  delta = x - mean;  mean += delta / n;  m2 += delta * (x - mean)
/// Two states A and B (say, two lanes' partial results) combine exactly (Chan, Golub and LeVeque):
///     n = nA + nB;  delta = meanB - meanA;
///     mean = meanA + delta * nB / n;  m2 = m2A + m2B + delta^2 * nA * nB / n
/// The variance is m2 / n (the population variance, what LayerNorm uses).
#pragma once

#include "common/primitives.cuh"

namespace ch04 {

/// The running state of Welford's algorithm. Counts are kept in float: exact up to 2^24 values,
/// and a float division is cheaper than converting an integer first.
struct Welford {
    float mean = 0.0f;
    float m2 = 0.0f;   ///< sum of squared deviations from the mean
    float count = 0.0f;
};

/// Adds one value to @p w.
__device__ __forceinline__ void welford_update(Welford& w, float x)
{
    w.count += 1.0f;
    const float delta = x - w.mean;
    w.mean += __fdividef(delta, w.count);   // 2-ulp division; count >= 1 here
    w.m2 += delta * (x - w.mean);           // old deviation times new deviation
}

/// Merges two states; either may be empty (count 0).
__device__ __forceinline__ Welford welford_combine(const Welford& a, const Welford& b)
{
    const float count = a.count + b.count;
    if (count == 0.0f) return a;   // both empty: avoid 0 / 0
    const float delta = b.mean - a.mean;
    const float b_share = __fdividef(b.count, count);
    Welford out;
    out.mean = a.mean + delta * b_share;
    out.m2 = a.m2 + b.m2 + delta * delta * a.count * b_share;
    out.count = count;
    return out;
}

/// Merges the states of each group of @p width consecutive lanes (a power of two <= 32) with
/// butterfly shuffles; every lane of the group receives the result, bit for bit the same in each
/// lane because both partners of a step combine (lower lane, upper lane) in that order.
template <int width = wb::kWarpSize>
__device__ __forceinline__ Welford warp_welford_reduce(Welford w)
{
    const int lane = threadIdx.x % wb::kWarpSize;
#pragma unroll
    for (int offset = width / 2; offset > 0; offset /= 2) {
        Welford other;
        other.mean = __shfl_xor_sync(wb::kFullWarpMask, w.mean, offset, width);
        other.m2 = __shfl_xor_sync(wb::kFullWarpMask, w.m2, offset, width);
        other.count = __shfl_xor_sync(wb::kFullWarpMask, w.count, offset, width);
        w = (lane & offset) ? welford_combine(other, w) : welford_combine(w, other);
    }
    return w;
}

/// Merges the states of a whole block of @p block_threads threads (a multiple of 32, <= 1024);
/// every thread receives the result. Every thread must call it.
/// @param scratch shared memory for block_threads / 32 states; reusable after the call.
template <int block_threads>
__device__ __forceinline__ Welford block_welford_reduce(Welford w, Welford* scratch)
{
    static_assert(block_threads % wb::kWarpSize == 0 && block_threads <= 1024, "block: multiple of 32, <= 1024");
    constexpr int warps = block_threads / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    w = warp_welford_reduce(w);
    if constexpr (warps == 1) {
        return w;
    } else {
        if (lane == 0) scratch[threadIdx.x / wb::kWarpSize] = w;
        __syncthreads();
        w = lane < warps ? scratch[lane] : Welford{};
        w = warp_welford_reduce(w);
        __syncthreads();   // scratch may be reused after we return
        return w;
    }
}

}  // namespace ch04
