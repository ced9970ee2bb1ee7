// Catalog, chapter 1, stage 1: a right kernel with an unsigned 64-bit index.
// expect: passed
//
// The contract asks for std::int64_t indices; std::size_t (unsigned, 64 bits) is just as right: the
// conversion comes before the product, so nothing wraps below 2^64. The grader's cases past 2^31 and
// 2^32 elements must pass it; a check that looked for a signed type, or a message that blamed any
// unsigned index, would be wrong.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

#include <cstddef>

namespace WORKBOOK_TRACK {

namespace {

__global__ void add_naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 std::size_t n)
{
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

}   // namespace

void add_1_naive(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    add_naive_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, static_cast<std::size_t>(n));
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
