// Chapter 2, stage 9: float4 loads, several in flight, one launch.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/02_reduce/stages.cuh; the lesson is chapters/02_reduce/README.md.
// Grade it with `make check-chapter 2`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=2 STAGE=9` when stuck.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;                  // float4 loads in flight per thread
constexpr int kTile = kThreads * kUnroll;   // float4s a block reads per loop iteration
constexpr int kPartialsOffset = 32;         // workspace: [0] the counter, [32 ...] the partial sums
constexpr int kMaxBlocks = 4096;

__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_single_pass_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n,
                              float* __restrict__ partials, unsigned* __restrict__ counter)
{
    // TODO: view in as const float4* (n / 4 whole vectors). Loop over tiles of kTile float4s
    //       (tile t = blockIdx.x, blockIdx.x + gridDim.x, ...): load kUnroll float4s per thread
    //       (p + u * kBlock) into a register array first, then add them all to acc. __ldcs(p) loads
    //       a float4 marked as read once (streaming): the caches evict it first.
    // TODO: the float4s after the last whole tile, then the last n % 4 floats, with grid-stride
    //       loops over the whole grid.
    // TODO: reduce acc over the block (your stage 8 block_sum, or wb::block_reduce_sum<kBlock>(acc,
    //       scratch) from common/primitives.cuh, the same construction).
    // TODO: thread 0: partials[blockIdx.x] = block sum; __threadfence(); ticket = atomicAdd(counter, 1);
    //       the block whose ticket is gridDim.x - 1 is the last (tell the block via __shared__ + __syncthreads()).
    // TODO: the last block: __threadfence(); sum partials[0 .. gridDim.x) (read with __ldcg), reduce over
    //       the block, thread 0 writes *out and sets *counter = 0 for the next call.
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel that reads the input with wide vector loads, keeps several in flight per thread, and finishes the
//       whole sum in one launch, the last block to finish combining every block's partial sum.
//@ end

void sum_9_vectorized_single_pass(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    //@ guided
    // TODO: max_blocks as in stage 7, for reduce_single_pass_kernel<kThreads>, clamped to
    //       [1, kMaxBlocks]; blocks = min(ceil_div(n, 4 * kTile), max_blocks); the counter is
    //       reinterpret_cast<unsigned*>(workspace), the partials start at workspace + kPartialsOffset.
    //       One launch on `stream`, then WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
