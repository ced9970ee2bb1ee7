// Catalog, chapter 1, stage 3: a grid capped at 65535 blocks, without a grid-stride loop.
// expect: wrong "without a grid-stride loop"
// emulated: skip "the emulated sizes (at most 2^20 + 3 elements) need fewer than 65535 blocks"
//
// The reference stage 3 with min(blocks, 65535): 65535 blocks of 256 threads cover 65535 x 1024
// elements (float4), just short of the timed 2^26 + 3 and far short of the 2^31 + 2^20 + 5 case.
// Every small size passes. The grader must find the unwritten end of a large output: in the case
// past 2^31 where the GPU has the memory, otherwise when it checks the timed output after timing.
#include "01_elementwise/activation.cuh"
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

template <ch01::Activation act>
__global__ void add_activation_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ y,
                                      std::int64_t n)
{
    using ch01::activate;
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t vectors = n / 4;
    if (i < vectors) {
        const float4 p = reinterpret_cast<const float4*>(a)[i];
        const float4 q = reinterpret_cast<const float4*>(b)[i];
        reinterpret_cast<float4*>(y)[i] = make_float4(activate<act>(p.x + q.x), activate<act>(p.y + q.y),
                                                      activate<act>(p.z + q.z), activate<act>(p.w + q.w));
    }
    const std::int64_t tail = vectors * 4 + i;
    if (i < n % 4) y[tail] = activate<act>(a[tail] + b[tail]);
}

}   // namespace

void add_act_3_fused(const float* a, const float* b, float* y, std::int64_t n, ch01::Activation act,
                     cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const std::int64_t threads_needed = std::max<std::int64_t>(n / 4, n % 4);
    // The bug: the block count capped at 65535 "to stay within the grid limit", and no grid-stride
    // loop to cover what the capped grid leaves (65535 is the limit of gridDim.y and z, not of x).
    const auto blocks =
        static_cast<unsigned>(std::min<std::int64_t>(wb::ceil_div<std::int64_t>(threads_needed, kThreads), 65535));
    if (act == ch01::Activation::relu) {
        add_activation_kernel<ch01::Activation::relu><<<blocks, kThreads, 0, stream>>>(a, b, y, n);
    } else {
        add_activation_kernel<ch01::Activation::sigmoid><<<blocks, kThreads, 0, stream>>>(a, b, y, n);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
