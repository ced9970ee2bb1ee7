// Catalog, chapter 3, stage 2: one block per row, the rows on gridDim.y.
// expect: crashed "launch was rejected"
//
// The reference stage 2 with the row taken from blockIdx.y, a natural choice for "one block per row"
// when x is kept for the columns. gridDim.y is limited to 65535, while the contract allows rows up
// to 2^31 - 1: the launch for 70001 rows is rejected. Small matrices hide it.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;   // 4 warps per row: enough for rows of a few thousand elements

__global__ void __launch_bounds__(kThreads)
    softmax_block_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t cols)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];   // one slot per warp for the block reductions
    const std::int64_t row = blockIdx.y;                  // the bug: rows on the grid's y dimension (at most 65535)
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float m = -INFINITY;
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
    const dim3 grid(1, static_cast<unsigned>(rows));
    softmax_block_kernel<<<grid, kThreads, 0, stream>>>(x, y, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
