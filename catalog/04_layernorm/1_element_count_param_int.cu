// Catalog, chapter 4, stage 1: the normalisation kernel takes the element count as int.
// expect: wrong "converted to int"
// emulated: skip "the emulated sizes stay far below 2^31 elements, the GPU grader checks 2,359,301 x 1000"
//
// The reference stage 1 with one type changed: kernel 2 (one thread per element) declares its count as
// `int n`, while its index is the std::int64_t the lesson asks for, so the learner believes the kernel
// is ready for large matrices. The launcher passes rows * cols, which the call narrows to int. Every
// matrix of the small cases and of the timing (at most 65536 x 1024 elements) fits, and the stage passes
// them all. The grader's case past the int range, 2,359,301 x 1000 on a GPU with 22 GiB free (x and y:
// 17.6 GiB), does not: n arrives as -1,935,666,296, every thread fails `i < n` and returns, and y is
// never written anywhere, while kernel 1 writes mean and rstd as it should. Nothing crashes; the grader
// must see the untouched output on every window it checks and name a count converted to int. On a GPU
// without the memory the case is skipped and this entry passes.
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
        const float d = xr[c] - mu;
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
                     const float* __restrict__ mean, const float* __restrict__ rstd, float* __restrict__ y, int n,
                     int cols)   // the bug: the element count in 32 bits
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
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
