// Catalog, chapter 4, stage 2: one 32-thread block per row, the grid capped at 65535 blocks, no loop over rows.
// expect: wrong "never written"
//
// The reference stage 2 (one warp per row, sum and sum of squares) launched as one 32-thread block per
// row, with the grid capped at 65535 blocks "because that is the most a grid holds" (it is the limit of
// gridDim.y and gridDim.z; gridDim.x goes to 2^31 - 1) and no grid-stride loop to make up for it. Rows
// from 65535 on are never touched: their y, mean and rstd keep the poison. A learner writes this after
// reading an old guide, or after a launch on gridDim.y was rejected. The contract asks for rows up to
// 2^31 - 1, and the grader's 70001 x 3 case exists to catch exactly this kind of row mapping; stage 2 is
// only excused from the cancellation of the naive variance, not from writing its outputs, so the stage
// must fail with the rows that were never written. (On a GPU the recheck after timing happens to see
// it too: the timed matrix has 65536 rows, one more than this grid covers. With four rows per block
// the same cap would leave out only rows past 262140, which just the GPU's 1048577 x 2 case has.)
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 32;                 // one warp, one row per block
constexpr std::int64_t kMaxBlocks = 65535;   // the bug: the limit of gridDim.y, applied to gridDim.x

__global__ void __launch_bounds__(kThreads)
    layernorm_warp_naive_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                                float* __restrict__ rstd, std::int64_t rows, std::int64_t cols, float eps)
{
    const std::int64_t row = blockIdx.x;   // no loop: rows past the grid are nobody's
    const int lane = threadIdx.x;
    if (row >= rows) return;   // block-uniform
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float sum = 0.0f;
    float sum_sq = 0.0f;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) {
        const float v = xr[c];
        sum += v;
        sum_sq += v * v;
    }
    const float n = static_cast<float>(cols);
    const float mu = wb::warp_reduce_sum(sum) / n;
    const float var = fmaxf(wb::warp_reduce_sum(sum_sq) / n - mu * mu, 0.0f);
    const float r = rsqrtf(var + eps);
    if (lane == 0) {
        mean[row] = mu;
        rstd[row] = r;
    }
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) yr[c] = (xr[c] - mu) * r * gamma[c] + beta[c];
}

}   // namespace

void layernorm_2_warp_naive(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                            std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(std::min(rows, kMaxBlocks));
    layernorm_warp_naive_kernel<<<blocks, kThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
