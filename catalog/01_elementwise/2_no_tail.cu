// Catalog, chapter 1, stage 2: float4 accesses, but the last n % 4 elements are forgotten.
// expect: wrong "tail"
//
// The grid covers n / 4 float4s (at least one block, so the launch is valid) and nothing handles the
// 1 to 3 elements after the last whole float4. For n = 1, 2, 3 nothing at all is written while n = 4
// comes out right: the grader must call that a wrong result (an uncovered tail), not "not implemented
// yet".
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

__global__ void add_vectors_only_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                        std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n / 4) {
        const float4 x = reinterpret_cast<const float4*>(a)[i];
        const float4 y = reinterpret_cast<const float4*>(b)[i];
        reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    // the bug: no scalar loop for the elements 4 * (n / 4) .. n - 1
}

}   // namespace

void add_2_vectorized(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, 4 * kThreads));
    add_vectors_only_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
