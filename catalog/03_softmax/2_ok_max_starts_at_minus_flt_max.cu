// expect: passed
//
// Chapter 3, stage 2, with the row maximum started at -FLT_MAX instead of -INFINITY. Every finite input
// is >= -FLT_MAX, so the maximum is the same as from -inf for every row that holds a finite value, the
// row near -FLT_MAX included, and -inf inputs still give exp(-inf - max) = 0. Only a row of nothing but
// -inf would differ, and its softmax is 0 / 0 either way, so no test holds one. A grader that rejected
// every finite start would be rejecting a right kernel.
#include <cfloat>

#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;   // 4 warps per row: enough for rows of a few thousand elements

__global__ void __launch_bounds__(kThreads)
    softmax_block_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t cols)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];   // one slot per warp for the block reductions
    const std::int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float m = -FLT_MAX;   // the most negative float: no input lies below it, so this start is as good as -inf
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, xr[c]);
    m = wb::block_reduce_max<kThreads>(m, scratch);   // every thread gets the row maximum

    float s = 0.0f;
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) s += __expf(xr[c] - m);
    s = wb::block_reduce_sum<kThreads>(s, scratch);

    const float inv = 1.0f / s;   // s >= 1: the maximum itself contributes exp(0)
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) yr[c] = __expf(xr[c] - m) * inv;
}

}   // namespace

void softmax_2_block_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    softmax_block_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, y, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
