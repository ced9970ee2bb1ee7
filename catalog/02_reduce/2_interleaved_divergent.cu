// Catalog, chapter 2, stage 2: stage 1's interleaved addressing handed in as stage 2 (still divergent).
// expect: too-slow "too slow"
// emulated: passed "divergent branches"
//
// Right sums, wrong idea: the working threads are still every (2s)-th thread, spread over all eight
// warps, so at small strides every warp runs the step with most of its lanes idle. On a GPU it runs at
// the speed of stage 1, below the x1.4 the stage asks. On the CPU emulator nothing is timed, but the
// memory-behaviour counters see the shared-memory requests with idle lanes: about nine in ten where
// reference stage 2 has about one in three, so the stage passes with the advice "divergent branches".
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;   // a power of two: the tree halves it at every step

__global__ void reduce_interleaved_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    __shared__ float sdata[kThreads];
    const unsigned tid = threadIdx.x;
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;   // past the end: the neutral element of +
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];   // tid = 0, 2s, 4s, ...: in every warp while s <= 16
        __syncthreads();   // outside the if: every thread of the block must reach it
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

}   // namespace

void sum_2_strided_index(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    ch02::reduce_in_passes(in, out, n, workspace, kThreads,
                           [&](const float* src, float* dst, std::int64_t count, unsigned blocks) {
                               reduce_interleaved_kernel<<<blocks, kThreads, 0, stream>>>(src, dst, count);
                               WB_CHECK_LAUNCH();
                           });
}

}   // namespace WORKBOOK_TRACK
