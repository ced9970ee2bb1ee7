// Catalog, chapter 4, stage 1: the element index of the normalising kernel computed in 32 bits (unsigned).
// expect: wrong "two unsigned ints"
// emulated: skip "the emulated sizes stay far below 2^32 elements, the GPU grader checks 4,456,453 x 1000"
//
// The reference stage 1 with `const std::int64_t i = blockIdx.x * kThreads + threadIdx.x;` in its
// second kernel, the one with a thread per element. blockIdx.x is an unsigned int, so kThreads is
// converted to one and the product wraps at 2^32 before it is widened. The thread of element 2^32 + j
// writes y[j] again (with the same value), and nobody writes the elements from 2^32 on; mean and rstd
// (a block per row) are right. The case of 2,359,301 x 1000 passes; the grader's case of 4,456,453 x
// 1000 (4.46e9 elements, x and y 33 GiB, run where the GPU has 37 GiB free) finds every element below
// 2^32 right and the ones past it never written, and must say that the index wraps at 2^32. On a GPU
// without the memory for it that case is skipped and this entry passes.
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kMomentThreads = 128;
constexpr int kThreads = 256;

/// Kernel 1: mean[r] and rstd[r] of every row, one block per row, two passes over the row.
__global__ void __launch_bounds__(kMomentThreads)
    row_moments_kernel(const float* __restrict__ x, float* __restrict__ mean, float* __restrict__ rstd,
                       std::int64_t cols, float eps)
{
    __shared__ float scratch[kMomentThreads / wb::kWarpSize];
    const std::int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    const float n = static_cast<float>(cols);

    float sum = 0.0f;
    for (std::int64_t c = threadIdx.x; c < cols; c += kMomentThreads) sum += xr[c];
    const float mu = wb::block_reduce_sum<kMomentThreads>(sum, scratch) / n;

    float squares = 0.0f;
    for (std::int64_t c = threadIdx.x; c < cols; c += kMomentThreads) {
        const float d = xr[c] - mu;   // deviations are small numbers: nothing cancels
        squares += d * d;
    }
    const float var = wb::block_reduce_sum<kMomentThreads>(squares, scratch) / n;
    if (threadIdx.x == 0) {
        mean[row] = mu;
        rstd[row] = rsqrtf(var + eps);
    }
}

/// Kernel 2: y = (x - mean) * rstd * gamma + beta, one thread per element.
__global__ void __launch_bounds__(kThreads)
    normalise_kernel(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                     const float* __restrict__ mean, const float* __restrict__ rstd, float* __restrict__ y,
                     std::int64_t n, std::int64_t cols)
{
    const std::int64_t i = blockIdx.x * kThreads + threadIdx.x;   // the bug: an unsigned product, wraps at 2^32
    if (i >= n) return;
    const std::int64_t row = i / cols;
    const std::int64_t col = i - row * cols;
    y[i] = (x[i] - mean[row]) * rstd[row] * gamma[col] + beta[col];
}

}   // namespace

void layernorm_1_two_kernels(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                             std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    row_moments_kernel<<<static_cast<unsigned>(rows), kMomentThreads, 0, stream>>>(x, mean, rstd, cols, eps);
    WB_CHECK_LAUNCH();
    const std::int64_t n = rows * cols;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    normalise_kernel<<<blocks, kThreads, 0, stream>>>(x, gamma, beta, mean, rstd, y, n, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
