// Chapter 2, stage 1: tree reduction in shared memory, interleaved addressing.          (reference solution)
//
// The baseline: one element per thread, a tree of log2(256) = 8 steps in shared memory, one partial
// sum per block, and further launches over the partial sums until one value is left. It is correct
// but slow: `tid % (2 * s)` costs a dozen instructions, and the threads that work are spread over
// all eight warps, so for s <= 16 every warp runs the step (divergent) while most lanes idle.
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

void sum_1_interleaved_divergent(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    ch02::reduce_in_passes(in, out, n, workspace, kThreads,
                           [&](const float* src, float* dst, std::int64_t count, unsigned blocks) {
                               reduce_interleaved_kernel<<<blocks, kThreads, 0, stream>>>(src, dst, count);
                               WB_CHECK_LAUNCH();
                           });
}

}   // namespace WORKBOOK_TRACK
