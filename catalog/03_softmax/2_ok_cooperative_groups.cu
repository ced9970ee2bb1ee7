// expect: passed
//
// Chapter 3, stage 2, with cooperative groups: one block of 128 threads per row as in the
// reference, but the block reductions are written with cg::reduce over the block's tiles of 32
// (cg::greater for the maximum, cg::plus for the sum), combined through shared memory after
// block.sync(). The running maximum starts at -std::numeric_limits<float>::infinity(), a constexpr
// host function called in device code (nvcc allows it with --expt-relaxed-constexpr, which the
// build passes). A right kernel: the grader must pass it, on the CPU emulator and on a GPU.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <limits>

namespace cg = cooperative_groups;

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockThreads = 128;
constexpr int kWarps = kBlockThreads / 32;

/// @p op over the whole block, returned to every thread. The first sync lets the previous call's
/// readers finish with @p scratch (kWarps floats) before it is overwritten.
template <class Op>
__device__ float block_reduce(const cg::thread_block& block, float v, float* scratch, Op op)
{
    const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    v = cg::reduce(warp, v, op);
    block.sync();
    if (warp.thread_rank() == 0) scratch[warp.meta_group_rank()] = v;
    block.sync();
    v = scratch[0];
    for (int w = 1; w < kWarps; ++w) v = op(v, scratch[w]);
    return v;
}

__global__ void __launch_bounds__(kBlockThreads)
    softmax_row_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t cols)
{
    __shared__ float scratch[kWarps];
    const cg::thread_block block = cg::this_thread_block();
    const std::int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float m = -std::numeric_limits<float>::infinity();
    for (std::int64_t c = block.thread_rank(); c < cols; c += kBlockThreads) m = fmaxf(m, xr[c]);
    m = block_reduce(block, m, scratch, cg::greater<float>());

    float s = 0.0f;
    for (std::int64_t c = block.thread_rank(); c < cols; c += kBlockThreads) s += __expf(xr[c] - m);
    s = block_reduce(block, s, scratch, cg::plus<float>());

    const float inv = 1.0f / s;
    for (std::int64_t c = block.thread_rank(); c < cols; c += kBlockThreads) yr[c] = __expf(xr[c] - m) * inv;
}

}   // namespace

void softmax_2_block_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    softmax_row_kernel<<<static_cast<unsigned>(rows), kBlockThreads, 0, stream>>>(x, y, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
