// Catalog, chapter 2, stage 3: the shared-memory tree with no barriers at all.
// expect: wrong "wrong result"
// emulated: crashed "shared memory race"
//
// Sequential addressing, but neither the __syncthreads() after the load nor the one after each step
// of the tree: at stride 128 warp 0 adds slots that warp 4 may not have stored yet (its global load
// is still in flight), at stride 64 slots that warp 2 has not updated, and so on. Thousands of blocks
// over the many cases make a stale read certain; the exact integer sums show it as a wrong result.
// (Which likely cause the grader names depends on what the stale slots held: a race cannot be told
// from the output alone, so only the verdict is fixed.)
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void reduce_without_barriers_kernel(const float* __restrict__ in, float* __restrict__ partial,
                                               std::int64_t n)
{
    __shared__ float sdata[kThreads];
    const unsigned tid = threadIdx.x;
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    // the bug: no __syncthreads() here ...
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        // ... nor here
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

}   // namespace

void sum_3_sequential_addressing(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    ch02::reduce_in_passes(in, out, n, workspace, kThreads,
                           [&](const float* src, float* dst, std::int64_t count, unsigned blocks) {
                               reduce_without_barriers_kernel<<<blocks, kThreads, 0, stream>>>(src, dst, count);
                               WB_CHECK_LAUNCH();
                           });
}

}   // namespace WORKBOOK_TRACK
