// The second kernel of the unfused baseline of stage 3: y = act(x) over a whole array.
#include "01_elementwise/activation.cuh"
#include "01_elementwise/grader/baselines.hpp"
#include "common/primitives.cuh"

namespace ch01 {

namespace {

template <Activation act>
__global__ void activation_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t vectors = n / 4;
    if (i < vectors) {
        const float4 v = reinterpret_cast<const float4*>(x)[i];
        reinterpret_cast<float4*>(y)[i] =
            make_float4(activate<act>(v.x), activate<act>(v.y), activate<act>(v.z), activate<act>(v.w));
    }
    const std::int64_t tail = vectors * 4 + i;
    if (i < n % 4) y[tail] = activate<act>(x[tail]);
}

}   // namespace

void activation_pass(const float* x, float* y, std::int64_t n, Activation act, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const std::int64_t threads_needed = std::max<std::int64_t>(n / 4, n % 4);
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(threads_needed, kThreads));
    if (act == Activation::relu) {
        activation_kernel<Activation::relu><<<blocks, kThreads, 0, stream>>>(x, y, n);
    } else {
        activation_kernel<Activation::sigmoid><<<blocks, kThreads, 0, stream>>>(x, y, n);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace ch01
