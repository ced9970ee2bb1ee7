// Chapter 2, stage 2: the same tree, work given to the first threads.          (reference solution)
//
// Why it is faster than stage 1: thread tid now handles index 2 * s * tid, so at stride s the
// working threads are 0 .. blockDim/(2s) - 1, packed into the first warps. Warps whose lanes are all
// idle skip the step entirely instead of running it diverged, and the modulo is gone. What is left:
// the lanes of a warp touch words 2s apart, so from s = 1 on they share shared-memory banks, and the
// hardware replays the access once per extra word in the busiest bank (bank conflicts: 2, 4, 8, 8,
// 8, 4, 2-way for s = 1 .. 64 on 256 threads, tools/bank_conflicts.py). Stage 3 fixes that.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void reduce_strided_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    __shared__ float sdata[kThreads];
    const unsigned tid = threadIdx.x;
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;   // bank (2*s*tid) % 32: lanes 2s words apart, conflicts from s = 1
        if (index < blockDim.x) sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

}   // namespace

void sum_2_strided_index(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    ch02::reduce_in_passes(in, out, n, workspace, kThreads,
                           [&](const float* src, float* dst, std::int64_t count, unsigned blocks) {
                               reduce_strided_kernel<<<blocks, kThreads, 0, stream>>>(src, dst, count);
                               WB_CHECK_LAUNCH();
                           });
}

}   // namespace WORKBOOK_TRACK
