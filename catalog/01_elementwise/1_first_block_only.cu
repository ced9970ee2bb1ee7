// Catalog, chapter 1, stage 1: the index leaves out blockIdx.x.
// expect: wrong "only one block"
//
// Every block computes i = threadIdx.x, so all blocks redo the first block's 256 elements and the rest
// of the array is never written. Sizes up to 256 pass; the first larger one (257) must fail, with the
// "only one block did any work" reading among the likely causes.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

__global__ void add_first_block_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                       std::int64_t n)
{
    const std::int64_t i = threadIdx.x;   // the bug: blockIdx.x * blockDim.x is missing
    if (i < n) c[i] = a[i] + b[i];
}

}   // namespace

void add_1_naive(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    add_first_block_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
