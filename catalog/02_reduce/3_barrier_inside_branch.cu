// Catalog, chapter 2, stage 3: the tree's barrier moved inside the `if (tid < s)`.
// expect: too-slow "too slow"
// emulated: hung "barrier divergence"
//
// Only the threads that still add reach the __syncthreads(); the others skip it, go round the loop
// and return. Since Volta a barrier does not wait for threads that have exited, so the sums usually
// come out right on a GPU, yet a barrier that not every thread of the block reaches is undefined.
// On an H100 the sums were right and compute-sanitizer's synccheck (CUDA 13.0) reported nothing: the
// GPU build rejects it only because it is also slow (x0.94 of reference stage 2, x1.10 needed), a
// known gap kept here so that it is measured. The emulator sees threads that waited at this barrier
// return while the rest of the block waits at it again.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void reduce_sequential_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    __shared__ float sdata[kThreads];
    const unsigned tid = threadIdx.x;
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
            __syncthreads();   // the bug: only the threads with tid < s get here
        }
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

}   // namespace

void sum_3_sequential_addressing(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    ch02::reduce_in_passes(in, out, n, workspace, kThreads,
                           [&](const float* src, float* dst, std::int64_t count, unsigned blocks) {
                               reduce_sequential_kernel<<<blocks, kThreads, 0, stream>>>(src, dst, count);
                               WB_CHECK_LAUNCH();
                           });
}

}   // namespace WORKBOOK_TRACK
