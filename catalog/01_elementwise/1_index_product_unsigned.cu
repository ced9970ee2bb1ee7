// Catalog, chapter 1, stage 1: the index stored in 64 bits, but computed in 32 (unsigned).
// expect: wrong "two unsigned ints"
// emulated: skip "the emulated sizes stay far below 2^32 elements, the GPU grader checks n = 2^32 + 2^20 + 5"
//
// The reference stage 1 with `const std::int64_t i = blockIdx.x * blockDim.x + threadIdx.x;`. It looks
// 64-bit, but blockIdx.x and blockDim.x are unsigned ints: their product is computed in 32 bits and
// wraps at 2^32 before it is widened. Past 2^31 nothing goes wrong (an unsigned int holds up to
// 2^32 - 1), so the case of 2^31 + 2^20 + 5 elements passes. The thread of element 2^32 + j computes
// i = j and writes c[j] again, with the same value, and no thread writes the elements from 2^32 on:
// the grader's case of 2^32 + 2^20 + 5 elements (3 arrays of 16 GiB, run where the GPU has 52 GiB free)
// finds them still holding the poison, every element below 2^32 right, and must say that the index
// wraps at 2^32. On a GPU without that memory the case is skipped and this entry passes.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

__global__ void add_naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 std::int64_t n)
{
    const std::int64_t i = blockIdx.x * blockDim.x + threadIdx.x;   // the bug: the product wraps at 2^32
    if (i < n) c[i] = a[i] + b[i];
}

}   // namespace

void add_1_naive(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    add_naive_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
