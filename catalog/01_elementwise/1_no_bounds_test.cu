// Catalog, chapter 1, stage 1: no bounds test, so the last block writes past the end of c.
// expect: wrong "past the end"
// emulated: crashed "read past the end of an input array"
//
// The grid is rounded up correctly, but the kernel has no `if (i < n)`: the threads of the last block
// beyond n write c[n], c[n + 1], ... Every element of c is right, so only the guard the harness keeps
// after each buffer can see it (on a real allocation the write lands in someone else's data, or
// faults only sometimes).
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

__global__ void add_unbounded_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];   // the bug: no test against n
}

}   // namespace

void add_1_naive(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    add_unbounded_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
