// Chapter 2, stage 7: many elements per thread, a grid sized to the GPU.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/02_reduce/stages.cuh; the lesson is chapters/02_reduce/README.md.
// Grade it with `make check-chapter 2`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=2 STAGE=7` when stuck.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullMask = 0xffffffffu;

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_grid_stride_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    // TODO: float acc = 0; a grid-stride loop: i starts at blockIdx.x * kBlock + tid and steps by
    //       gridDim.x * kBlock (as std::int64_t) while i < n, adding in[i] to acc.
    // TODO: sdata[tid] = acc; __syncthreads(); then stage 6's block reduction; thread 0 writes
    //       partial[blockIdx.x].
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which each thread first sums many elements, striding over the whole input, before the block
//       reduces, with a grid only as large as the GPU can keep resident, so that the second pass is tiny.
//@ end

void sum_7_many_per_thread(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    //@ guided
    // TODO: the blocks the GPU holds at once, asked once: static const int max_blocks = clamp of
    //       wb::resident_blocks(reduce_grid_stride_kernel<kThreads>, kThreads) to [1, 4096] (the
    //       workspace holds 4096 partial sums). Read wb::resident_blocks in common/primitives.cuh:
    //       SMs x cudaOccupancyMaxActiveBlocksPerMultiprocessor, the occupancy API of this stage.
    // TODO: blocks = min(ceil_div(n, 2 * kThreads), max_blocks). If that is 1, one launch
    //       straight into out. Otherwise launch the grid into workspace (one partial per block), then
    //       one block over those `blocks` partials into out. WB_CHECK_LAUNCH() after each launch.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
