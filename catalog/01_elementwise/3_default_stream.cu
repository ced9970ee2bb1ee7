// Catalog, chapter 1, stage 3: the kernel is launched without its stream.
// expect: wrong "stream it was given"
//
// kernel<<<blocks, threads>>> runs on the legacy default stream instead of the stream the grader
// passed. The results are right (the grader's synchronous copies happen to wait for the default
// stream), but the work is unordered with everything else on the caller's stream and invisible to
// its timing events. The stream probe must catch it: the caller's stream, captured during one call,
// holds no work at all.
#include "01_elementwise/activation.cuh"
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

template <ch01::Activation act>
__global__ void add_activation_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ y,
                                      std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t vectors = n / 4;
    if (i < vectors) {
        const float4 p = reinterpret_cast<const float4*>(a)[i];
        const float4 q = reinterpret_cast<const float4*>(b)[i];
        reinterpret_cast<float4*>(y)[i] = make_float4(ch01::activate<act>(p.x + q.x), ch01::activate<act>(p.y + q.y),
                                                      ch01::activate<act>(p.z + q.z), ch01::activate<act>(p.w + q.w));
    }
    const std::int64_t tail = vectors * 4 + i;
    if (i < n % 4) y[tail] = ch01::activate<act>(a[tail] + b[tail]);
}

}   // namespace

void add_act_3_fused(const float* a, const float* b, float* y, std::int64_t n, ch01::Activation act,
                     cudaStream_t stream)
{
    (void)stream;   // the bug: the stream is never used
    constexpr int kThreads = 256;
    const std::int64_t threads_needed = std::max<std::int64_t>(n / 4, n % 4);
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(threads_needed, kThreads));
    if (act == ch01::Activation::relu) {
        add_activation_kernel<ch01::Activation::relu><<<blocks, kThreads>>>(a, b, y, n);
    } else {
        add_activation_kernel<ch01::Activation::sigmoid><<<blocks, kThreads>>>(a, b, y, n);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
