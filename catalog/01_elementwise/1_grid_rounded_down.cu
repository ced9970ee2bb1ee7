// Catalog, chapter 1, stage 1: the grid size is rounded down.
// expect: crashed "launch was rejected"
//
// blocks = n / 256 drops the partial last block, and for n < 256 it is 0: a launch with an empty grid
// is refused by the runtime (cudaErrorInvalidConfiguration), which WB_CHECK_LAUNCH reports at once.
// The grader must call it a rejected launch, not a wrong result.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

__global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                           std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

}   // namespace

void add_1_naive(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const auto blocks = static_cast<unsigned>(n / kThreads);   // the bug: should round up
    add_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
