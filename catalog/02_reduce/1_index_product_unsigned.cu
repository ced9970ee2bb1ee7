// Catalog, chapter 2, stage 1: the index stored in 64 bits, but computed in 32 (unsigned).
// expect: wrong "index taken modulo"
// emulated: skip "the emulated sizes stay far below 2^32 elements, the GPU grader sums 2^32 + 2^28 + 3"
//
// The reference stage 1 with `const std::int64_t i = blockIdx.x * blockDim.x + tid;`: blockIdx.x and
// blockDim.x are unsigned ints, so the product wraps at 2^32 before it is widened. Block 2^24 + b (each
// of 256 elements) loads the elements of block b again, and no element from 2^32 on is read. Every
// input below 2^32 elements, the case of 2^31 + 2^28 + 3 included, is summed right. The grader's sum of
// 2^32 + 2^28 + 3 elements (17 GiB, run where the GPU has 21 GiB free) is zero but for 12 marked
// elements that hold 1, 2, 4, ..., 2048: the result, 262 instead of 4095, is exactly what an index taken
// modulo 2^32 gives, and the grader must say so. On a GPU without that memory this entry passes.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;   // a power of two: the tree halves it at every step

__global__ void reduce_interleaved_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    __shared__ float sdata[kThreads];
    const unsigned tid = threadIdx.x;
    const std::int64_t i = blockIdx.x * blockDim.x + tid;   // the bug: the product wraps at 2^32
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
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
