/// @file 04_layernorm/welford.cuh
/// @brief Welford's running mean and variance: the update that chapter 4 builds on from stage 3.
///
/// A running state (count n, mean, m2 = sum of squared deviations from the mean) absorbs one value
/// at a time without ever forming sum(x^2), so no large numbers cancel:
///     n += 1;  delta = x - mean;  mean += delta / n;  m2 += delta * (x - mean)
/// Two states A and B (say, two lanes' partial results) combine exactly (Chan, Golub and LeVeque):
///     n = nA + nB;  delta = meanB - meanA;
///     mean = meanA + delta * nB / n;  m2 = m2A + m2B + delta^2 * nA * nB / n
/// The variance is m2 / n (the population variance, what LayerNorm uses).
///
/// The state and its merge are reductions like any other, so they live with the others in
/// common/primitives.cuh: wb::Welford, and wb::WelfordMerge for wb::warp_allreduce and
/// wb::block_allreduce. Try to derive the merge yourself before you read it there.
#pragma once

#include "common/primitives.cuh"

namespace ch04 {

using wb::Welford;   // {mean, m2, count}; the empty state is {0, 0, 0}

/// Adds one value to @p w.
__device__ __forceinline__ void welford_update(Welford& w, float x)
{
    w.count += 1.0f;
    const float delta = x - w.mean;
    w.mean += __fdividef(delta, w.count);   // 2-ulp division; count >= 1 here
    w.m2 += delta * (x - w.mean);           // old deviation times new deviation
}

}   // namespace ch04
