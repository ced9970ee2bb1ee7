// Catalog, chapter 4, stage 3: the variance as (sum of squares - sum^2 / n) / n, in float.
// expect: wrong "the mean is right but the variance is not"
//
// Stage 3's lesson is a variance without cancellation; this one keeps the one-pass textbook formula.
// For rows near 1e4 with a spread of 1 the sum of squares is about 1e8 per element, where floats are
// 8 apart, and the variance (about 1/3) drowns in rounding; random rows whose mean is large next to
// their spread fail the same way, often first. The grader must fail it and name cancellation.
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kWarpsPerBlock = 8;

__global__ void layernorm_one_pass_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                          const float* __restrict__ beta, float* __restrict__ y,
                                          float* __restrict__ mean, float* __restrict__ rstd, std::int64_t rows,
                                          std::int64_t cols, float eps)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;
    const float* in = x + row * cols;
    float s = 0.0f, q = 0.0f;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) {
        s += in[c];
        q = fmaf(in[c], in[c], q);
    }
    s = wb::warp_reduce_sum(s);
    q = wb::warp_reduce_sum(q);
    const float n = static_cast<float>(cols);
    const float mu = s / n;
    const float var = fmaxf((q - s * s / n) / n, 0.0f);   // the bug: two huge, nearly equal numbers subtracted
    const float r = rsqrtf(var + eps);
    if (lane == 0) {
        mean[row] = mu;
        rstd[row] = r;
    }
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) y[row * cols + c] = (in[c] - mu) * r * gamma[c] + beta[c];
}

}   // namespace

void layernorm_3_warp_welford(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                              std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kWarpsPerBlock));
    layernorm_one_pass_kernel<<<blocks, kWarpsPerBlock * wb::kWarpSize, 0, stream>>>(x, gamma, beta, y, mean, rstd,
                                                                                     rows, cols, eps);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
