// Catalog, chapter 1, stage 4: the arithmetic is done in half precision, not in float.
// expect: wrong "lost precision"
//
// Storage in __half is the lesson; computing in __half is the bug. The sum, the exponential, the
// addition of 1 and the reciprocal each round to 11 significant bits, so sigmoid results drift a few
// half-precision ulps from the correctly rounded value, beyond the one ulp the contract allows. relu
// stays exact (one rounding), so the failure shows on the sigmoid cases, as small errors everywhere.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

#include <cuda_fp16.h>

namespace WORKBOOK_TRACK {

namespace {

template <ch01::Activation act>
__device__ __forceinline__ __half2 activate_in_half(__half2 x)
{
    if constexpr (act == ch01::Activation::relu) {
        return __hmax2(x, __float2half2_rn(0.0f));
    } else {
        return h2rcp(__hadd2(__float2half2_rn(1.0f), h2exp(__hneg2(x))));   // every step rounds to half
    }
}

template <ch01::Activation act>
__global__ void add_activation_half_math_kernel(const __half* __restrict__ a, const __half* __restrict__ b,
                                                __half* __restrict__ y, std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t vectors = n / 8;
    if (i < vectors) {
        uint4 p = reinterpret_cast<const uint4*>(a)[i];
        uint4 q = reinterpret_cast<const uint4*>(b)[i];
        uint4 out;
        const auto* p2 = reinterpret_cast<const __half2*>(&p);
        const auto* q2 = reinterpret_cast<const __half2*>(&q);
        auto* out2 = reinterpret_cast<__half2*>(&out);
#pragma unroll
        for (int k = 0; k < 4; ++k) out2[k] = activate_in_half<act>(__hadd2(p2[k], q2[k]));
        reinterpret_cast<uint4*>(y)[i] = out;
    }
    const std::int64_t tail = vectors * 8 + i;
    if (i < n % 8) {
        const __half2 s = __hadd2(__half2half2(a[tail]), __half2half2(b[tail]));
        y[tail] = __low2half(activate_in_half<act>(s));
    }
}

}   // namespace

void add_act_4_half2(const __half* a, const __half* b, __half* y, std::int64_t n, ch01::Activation act,
                     cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const std::int64_t threads_needed = std::max<std::int64_t>(n / 8, n % 8);
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(threads_needed, kThreads));
    if (act == ch01::Activation::relu) {
        add_activation_half_math_kernel<ch01::Activation::relu><<<blocks, kThreads, 0, stream>>>(a, b, y, n);
    } else {
        add_activation_half_math_kernel<ch01::Activation::sigmoid><<<blocks, kThreads, 0, stream>>>(a, b, y, n);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
