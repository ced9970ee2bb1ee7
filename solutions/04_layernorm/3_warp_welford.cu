// Chapter 4, stage 3: one warp per row, Welford's algorithm and a warp merge.          (reference solution)
//
// Why it is right where stage 2 was not: Welford's update never forms sum(x^2); it tracks the mean
// and the sum of squared deviations from the current mean, small numbers when the spread is small,
// so nothing cancels. Partial states merge exactly (welford.cuh), so the lanes of a warp can each
// run their own and combine them with shuffles (wb::warp_allreduce). It is still one pass for the statistics and one
// for the output, like stage 2, and therefore just as much faster than stage 1; the price is a
// division per element, which a memory-bound kernel can afford.
#include "04_layernorm/stages.cuh"
#include "04_layernorm/welford.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

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
    state = wb::warp_allreduce<wb::WelfordMerge>(state);   // every lane gets the row's (count, mean, m2)

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
