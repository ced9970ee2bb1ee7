// Catalog, chapter 4, stage 3: eps written into the kernel (1e-5f) instead of taken from the argument.
// expect: wrong "eps is written into the kernel"
//
// The reference stage 3 with one change. A grader that only ever passes eps = 1e-5 cannot tell; this
// one draws eps per case (1e-5, 1e-3, 0.1, 1), and the first case with another eps must fail, with
// a message that names the ignored argument.
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
    const float r = rsqrtf(state.m2 / state.count + 1e-5f);   // the bug: eps written in, the argument ignored
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
