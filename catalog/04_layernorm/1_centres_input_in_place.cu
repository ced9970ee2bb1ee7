// Catalog, chapter 4, stage 1: the statistics kernel centres x in place (x -= mean), writing into the input.
// expect: wrong "wrote into an input array"
//
// A learner who wants to save the second kernel a subtraction (and the variance pass a recomputation)
// casts the const away and stores x - mean back into x: the variance is then the mean of x^2 over the
// centred row, and the elementwise kernel computes y = x * rstd * gamma + beta. y, mean and rstd are all
// right. But x is the caller's input (a const pointer in the contract: a framework reuses it for the
// backward pass, a residual connection, the next layer's input), and after one call it holds the
// centred row. No output shows it: the grader must compare the input after the call with what it
// uploaded.
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kMomentThreads = 128;
constexpr int kThreads = 256;

/// Kernel 1: the mean, then x -= mean in place, then the mean of the centred squares.
__global__ void __launch_bounds__(kMomentThreads)
    centre_and_moments_kernel(float* __restrict__ x, float* __restrict__ mean, float* __restrict__ rstd,
                              std::int64_t cols, float eps)
{
    __shared__ float scratch[kMomentThreads / wb::kWarpSize];
    const std::int64_t row = blockIdx.x;
    float* xr = x + row * cols;
    const float n = static_cast<float>(cols);

    float sum = 0.0f;
    for (std::int64_t c = threadIdx.x; c < cols; c += kMomentThreads) sum += xr[c];
    const float mu = wb::block_reduce_sum<kMomentThreads>(sum, scratch) / n;

    float squares = 0.0f;
    for (std::int64_t c = threadIdx.x; c < cols; c += kMomentThreads) {
        const float d = xr[c] - mu;
        xr[c] = d;   // the bug: the input overwritten with the centred value
        squares += d * d;
    }
    const float var = wb::block_reduce_sum<kMomentThreads>(squares, scratch) / n;
    if (threadIdx.x == 0) {
        mean[row] = mu;
        rstd[row] = rsqrtf(var + eps);
    }
}

/// Kernel 2: y = x_centred * rstd * gamma + beta, one thread per element.
__global__ void __launch_bounds__(kThreads)
    scale_kernel(const float* __restrict__ x_centred, const float* __restrict__ gamma, const float* __restrict__ beta,
                 const float* __restrict__ rstd, float* __restrict__ y, std::int64_t n, std::int64_t cols)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (i >= n) return;
    const std::int64_t row = i / cols;
    const std::int64_t col = i - row * cols;
    y[i] = x_centred[i] * rstd[row] * gamma[col] + beta[col];
}

}   // namespace

void layernorm_1_two_kernels(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                             std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    float* scratch_x = const_cast<float*>(x);   // "nobody needs x afterwards"
    centre_and_moments_kernel<<<static_cast<unsigned>(rows), kMomentThreads, 0, stream>>>(scratch_x, mean, rstd, cols,
                                                                                          eps);
    WB_CHECK_LAUNCH();
    const std::int64_t n = rows * cols;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    scale_kernel<<<blocks, kThreads, 0, stream>>>(scratch_x, gamma, beta, rstd, y, n, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
