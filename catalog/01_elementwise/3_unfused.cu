// Catalog, chapter 1, stage 3: right results, but still two passes (add, then activate in place).
// expect: too-slow "too slow"
//
// The fusion is the lesson of stage 3 and it is missing: the first kernel writes a + b to y, the second
// reads y back and applies the activation. Five array passes instead of three, so the speed-up over
// the unfused pair is about 1, far below what the rule asks (at least 0.8 x the gain of the fused
// reference, which is about 5/3 on any memory-bound GPU).
#include "01_elementwise/activation.cuh"
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

__global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ y,
                           std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a[i] + b[i];
}

template <ch01::Activation act>
__global__ void activate_in_place_kernel(float* y, std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) y[i] = ch01::activate<act>(y[i]);
}

}   // namespace

void add_act_3_fused(const float* a, const float* b, float* y, std::int64_t n, ch01::Activation act,
                     cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    add_kernel<<<blocks, kThreads, 0, stream>>>(a, b, y, n);   // the bug: a second pass over y follows
    WB_CHECK_LAUNCH();
    if (act == ch01::Activation::relu) {
        activate_in_place_kernel<ch01::Activation::relu><<<blocks, kThreads, 0, stream>>>(y, n);
    } else {
        activate_in_place_kernel<ch01::Activation::sigmoid><<<blocks, kThreads, 0, stream>>>(y, n);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
