// Chapter 2, stage 8: the block reduction with warp shuffles.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/02_reduce/stages.cuh; the lesson is chapters/02_reduce/README.md.
// Grade it with `make check-chapter 2`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=2 STAGE=8` when stuck.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullMask = 0xffffffffu;

/// The sum of the 32 lanes' values, in lane 0 (the other lanes hold partial sums).
__device__ __forceinline__ float warp_sum(float v)
{
    // TODO: for offset = 16, 8, 4, 2, 1: v += __shfl_down_sync(kFullMask, v, offset).
    return v;
}

/// The sum over the block, valid in thread 0. Every thread of the block must call it.
template <int kBlock>
__device__ __forceinline__ float block_sum(float v)
{
    // TODO: __shared__ float warp_sums[kBlock / 32]; every warp: v = warp_sum(v); lane 0 stores it
    //       at warp_sums[warp]; one __syncthreads(); warp 0 loads warp_sums[lane] (0 for lanes past
    //       kBlock / 32) and returns warp_sum of that.
    return v;
}

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_shuffle_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    // TODO: the grid-stride loop of stage 7 into a register, then block_sum<kBlock>; thread 0
    //       writes partial[blockIdx.x].
}

}   // namespace
//@ end
//@ outline
// TODO: stage 7's kernel with the block's reduction done by warp shuffles: each warp sums its lanes in registers, one
//       value per warp goes through shared memory, and a single barrier separates the two steps.
//@ end

void sum_8_warp_shuffle(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    //@ guided
    // TODO: stage 7's launcher for reduce_shuffle_kernel<kThreads>: max_blocks from
    //       wb::resident_blocks, then two launches (or one when a single block is enough).
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
