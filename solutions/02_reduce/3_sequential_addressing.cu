// Chapter 2, stage 3: sequential addressing, the tree run backwards.          (reference solution)
//
// Why it is faster than stage 2: at stride s, thread tid < s adds sdata[tid + s] into sdata[tid].
// The 32 lanes of a warp touch 32 consecutive words, one in each of the 32 banks, so every
// shared-memory access is served in one pass (no bank conflicts), and the working threads stay
// packed into the first warps as in stage 2.
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
