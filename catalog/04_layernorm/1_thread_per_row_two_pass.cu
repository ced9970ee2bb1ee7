// Catalog, chapter 4, stage 1: one thread per row, two passes in float (a RIGHT kernel in another style).
// expect: passed
//
// The first LayerNorm most people write: a thread takes a whole row, sums it for the mean, sums the
// squared deviations for the variance, then writes y. Each sum is one chain of cols float additions,
// so its error is cols times that of one addition; stage 1's tolerance is derived from exactly that
// (depth = cols), and this port must pass, as the one-thread-per-row softmax passes chapter 3's stage 1.
// Slow (a warp reads 32 different rows), but stage 1 has no speed target.
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads)
    layernorm_thread_per_row_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                    const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                                    float* __restrict__ rstd, std::int64_t rows, std::int64_t cols, float eps)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float sum = 0.0f;
    for (std::int64_t c = 0; c < cols; ++c) sum += xr[c];
    const float mu = sum / static_cast<float>(cols);
    float squares = 0.0f;
    for (std::int64_t c = 0; c < cols; ++c) {
        const float d = xr[c] - mu;
        squares += d * d;
    }
    const float r = rsqrtf(squares / static_cast<float>(cols) + eps);
    mean[row] = mu;
    rstd[row] = r;
    for (std::int64_t c = 0; c < cols; ++c) yr[c] = (xr[c] - mu) * r * gamma[c] + beta[c];
}

}   // namespace

void layernorm_1_two_kernels(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                             std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kThreads));
    layernorm_thread_per_row_kernel<<<blocks, kThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
