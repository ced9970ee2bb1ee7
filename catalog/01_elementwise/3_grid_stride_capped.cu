// Catalog, chapter 1, stage 3: a capped grid with a grid-stride loop (a RIGHT kernel in another style).
// expect: passed
//
// At most 65535 blocks, and each thread walks the array in steps of the whole grid, so any n is
// covered, 2^31 + 2^20 + 5 included. The checks of large outputs on a sample (the case past 2^31
// and the timed output after timing) must pass it, as they must fail the same cap without the loop
// (3_capped_grid).
#include "01_elementwise/activation.cuh"
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 65535;

template <ch01::Activation act>
__global__ void add_activation_grid_stride_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                                  float* __restrict__ y, std::int64_t n)
{
    using ch01::activate;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t vectors = n / 4;
    for (std::int64_t i = first; i < vectors; i += stride) {
        const float4 p = reinterpret_cast<const float4*>(a)[i];
        const float4 q = reinterpret_cast<const float4*>(b)[i];
        reinterpret_cast<float4*>(y)[i] = make_float4(activate<act>(p.x + q.x), activate<act>(p.y + q.y),
                                                      activate<act>(p.z + q.z), activate<act>(p.w + q.w));
    }
    for (std::int64_t t = vectors * 4 + first; t < n; t += stride) y[t] = activate<act>(a[t] + b[t]);
}

}   // namespace

void add_act_3_fused(const float* a, const float* b, float* y, std::int64_t n, ch01::Activation act,
                     cudaStream_t stream)
{
    const std::int64_t threads_needed = std::max<std::int64_t>(n / 4, n % 4);
    const auto blocks =
        static_cast<unsigned>(std::min<std::int64_t>(wb::ceil_div<std::int64_t>(threads_needed, kThreads), kMaxBlocks));
    if (act == ch01::Activation::relu) {
        add_activation_grid_stride_kernel<ch01::Activation::relu><<<blocks, kThreads, 0, stream>>>(a, b, y, n);
    } else {
        add_activation_grid_stride_kernel<ch01::Activation::sigmoid><<<blocks, kThreads, 0, stream>>>(a, b, y, n);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
