// Catalog, chapter 1, stage 3: a repeated call with the same arguments does nothing.
// expect: wrong "cached from an earlier call"
//
// Like the stage 2 entry that caches its result: the timed launches do no work. Stage 3's speed case
// rechecks the timed output on windows spread over it after timing (before the implausible-speed test
// could see the events measure next to nothing), and finds it unwritten: a repeated call skipped work.
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
    if (i < n) y[i] = ch01::activate<act>(a[i] + b[i]);
}

struct LastCall {
    const float* a = nullptr;
    const float* b = nullptr;
    float* y = nullptr;
    std::int64_t n = 0;
    ch01::Activation act = ch01::Activation::relu;
};

}   // namespace

void add_act_3_fused(const float* a, const float* b, float* y, std::int64_t n, ch01::Activation act,
                     cudaStream_t stream)
{
    static LastCall last;
    if (a == last.a && b == last.b && y == last.y && n == last.n && act == last.act) return;   // the bug
    last = {a, b, y, n, act};
    constexpr int kThreads = 256;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    if (act == ch01::Activation::relu) {
        add_activation_kernel<ch01::Activation::relu><<<blocks, kThreads, 0, stream>>>(a, b, y, n);
    } else {
        add_activation_kernel<ch01::Activation::sigmoid><<<blocks, kThreads, 0, stream>>>(a, b, y, n);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
