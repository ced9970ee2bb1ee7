// expect: passed
//
// Chapter 2, stage 8, written with cooperative groups: the same one-barrier block reduction as the
// reference, but each warp is a cg::thread_block_tile<32> and its sum is cg::reduce(warp, v,
// cg::plus<float>()), a butterfly of shuffles that leaves the sum in every lane. The block has 512
// threads (16 warps) instead of 256, and the grid is sized from the occupancy of this kernel, as the
// reference does. A right kernel: the grader must pass it, on the CPU emulator and on a GPU.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>

namespace cg = cooperative_groups;

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockThreads = 512;

/// The block's sum, valid in thread 0: each warp reduces in registers, one barrier, warp 0 finishes.
__device__ float block_sum(const cg::thread_block& block, float v)
{
    __shared__ float warp_sums[kBlockThreads / 32];
    const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.0f;
        v = cg::reduce(warp, v, cg::plus<float>());
    }
    return v;
}

__global__ void __launch_bounds__(kBlockThreads)
    sum_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    const cg::thread_block block = cg::this_thread_block();
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kBlockThreads;
    float acc = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kBlockThreads + block.thread_rank(); i < n;
         i += stride) {
        acc += in[i];
    }
    acc = block_sum(block, acc);
    if (block.thread_rank() == 0) partial[blockIdx.x] = acc;
}

}   // namespace

void sum_8_warp_shuffle(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    static const int max_blocks = std::clamp(wb::resident_blocks(sum_kernel, kBlockThreads), 1, 4096);
    const auto blocks =
        static_cast<unsigned>(std::min<std::int64_t>(wb::ceil_div<std::int64_t>(n, 2 * kBlockThreads), max_blocks));
    if (blocks == 1) {
        sum_kernel<<<1, kBlockThreads, 0, stream>>>(in, out, n);
        WB_CHECK_LAUNCH();
        return;
    }
    sum_kernel<<<blocks, kBlockThreads, 0, stream>>>(in, workspace, n);
    WB_CHECK_LAUNCH();
    sum_kernel<<<1, kBlockThreads, 0, stream>>>(workspace, out, blocks);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
