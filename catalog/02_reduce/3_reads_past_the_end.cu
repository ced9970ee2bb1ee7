// Catalog, chapter 2, stage 3: the load without its bounds test.
// expect: wrong "a read past the end of an input"
// emulated: crashed "read past the end of an input array"
//
// `sdata[tid] = in[i]` with no `i < n`: the last block reads past the end of the input. What lies
// there decides the result. Inside the harness's guard every byte is one of 0xC8 to 0xDF, so each float
// read there is a large negative number (-4.1e5 to -3.2e19): on an H100 the sum of n = 1 integer came
// out -1.69e9, the 255 other threads of the block having each added the guard value -6.6e6, and the
// grader recognises 255 copies of its guard. Elsewhere the bytes are anything (or
// the read faults); the grader's memcheck run, whose arrays have no guard, finds the read. Outside the
// grader this is a read out of bounds (memcheck, compute-sanitizer, reports it when it leaves the
// allocation). The emulator knows where each of the grader's arrays ends and stops the read.
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
    sdata[tid] = in[i];   // the bug: no i < n
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
