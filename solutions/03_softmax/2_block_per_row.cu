// Chapter 3, stage 2: one fused kernel, one thread block per row.          (reference solution)
//
// Why it is faster than stage 1: the 128 threads of a block stride through their row side by
// side, so every warp load is one coalesced 128-byte request instead of 32 scattered ones, and a
// row is worked on by 128 threads instead of one. The three kernels are fused: the maximum and the
// sum stay on chip (block reductions through shuffles and shared memory), y is written once, and
// the second and third reads of the row mostly hit the cache.
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
    softmax_block_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, y, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
