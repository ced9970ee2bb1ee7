// Catalog, chapter 4, stage 3: a hand-written Welford merge that divides by a count of 0 when both states are empty.
// expect: wrong "or 0 / 0"
//
// The learner's merge is the textbook formula, mean = meanA + delta * nB / (nA + nB), with no
// thought for empty states. A lane with no columns (every lane past the end of a row shorter than 32)
// starts empty, and in a row of fewer than 16 columns the butterfly's first step already pairs two
// empty lanes: 0 / 0 is NaN, and the NaN spreads through the next steps into the whole row's mean,
// rstd and y (README, "Common bugs"). Rows of 16 columns or more never merge two empty states and are
// right. The grader must fail the short rows and name a NaN that the inputs do not give (0 / 0).
#include "04_layernorm/stages.cuh"
#include "04_layernorm/welford.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

/// The learner's merge of two lanes' states (lower lane first, so that every lane gets the same bits).
__device__ __forceinline__ ch04::Welford merge(const ch04::Welford& a, const ch04::Welford& b)
{
    const float count = a.count + b.count;   // the bug: no test for count == 0 (two empty lanes)
    const float delta = b.mean - a.mean;
    const float b_share = b.count / count;   // 0 / 0 = NaN when both are empty
    ch04::Welford out;
    out.mean = a.mean + delta * b_share;
    out.m2 = a.m2 + b.m2 + delta * delta * a.count * b_share;
    out.count = count;
    return out;
}

__global__ void __launch_bounds__(kThreads)
    layernorm_warp_welford_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                  const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                                  float* __restrict__ rstd, std::int64_t rows, std::int64_t cols, float eps)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;   // warp-uniform
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    ch04::Welford state;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) ch04::welford_update(state, xr[c]);
    for (int offset = wb::kWarpSize / 2; offset > 0; offset /= 2) {
        ch04::Welford other;
        other.mean = __shfl_xor_sync(wb::kFullWarpMask, state.mean, offset);
        other.m2 = __shfl_xor_sync(wb::kFullWarpMask, state.m2, offset);
        other.count = __shfl_xor_sync(wb::kFullWarpMask, state.count, offset);
        state = (lane & offset) ? merge(other, state) : merge(state, other);
    }

    const float mu = state.mean;
    const float r = rsqrtf(state.m2 / state.count + eps);
    if (lane == 0) {
        mean[row] = mu;
        rstd[row] = r;
    }
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) yr[c] = (xr[c] - mu) * r * gamma[c] + beta[c];
}

}   // namespace

void layernorm_3_warp_welford(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                              std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    layernorm_warp_welford_kernel<<<blocks, kThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
