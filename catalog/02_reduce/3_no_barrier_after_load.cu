// Catalog, chapter 2, stage 3: no barrier between loading the block's values and the first step.
// expect: wrong "a missing __syncthreads()"
// emulated: crashed "shared memory race"
//
// The tree keeps its barriers, but the first step reads sdata[tid + 128], stored by warps 4 to 7,
// with no __syncthreads() after the loads. Whether those warps stored in time depends on the order
// the GPU runs them in, so the sums are usually right and sometimes not; racecheck
// (compute-sanitizer) reports the read-after-write hazard. The emulator's shared-memory checker sees
// the read of a word another thread stored in the same barrier interval.
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
    // the bug: no __syncthreads() here

    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) sdata[tid] += sdata[tid + s];   // lanes read consecutive words: one per bank
        __syncthreads();
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
