// Chapter 1, stage 1: c = a + b, one thread per element.          (reference solution)
//
// The baseline. Consecutive threads touch consecutive floats, so each warp's 32 loads combine into
// one 128-byte transaction (coalescing): even this simplest kernel streams memory well. What it
// spends is instructions: one load, one index computation and one bounds test per 4 bytes.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

__global__ void add_naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 std::int64_t n)
{
    // 64-bit index: blockIdx.x * blockDim.x overflows int past 2^31 elements.
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];   // the last block is partly outside the array
}

}   // namespace

void add_1_naive(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    constexpr int kThreads = 256;   // a multiple of 32; 256 keeps enough blocks per SM resident
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    add_naive_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
