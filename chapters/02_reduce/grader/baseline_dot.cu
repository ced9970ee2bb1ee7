// The first kernel of the unfused dot product (stage 10's baseline): product = x * y, elementwise.
#include "02_reduce/grader/baselines.hpp"
#include "common/cuda_check.hpp"
#include "common/primitives.cuh"

#include <algorithm>

namespace ch02 {

namespace {

__global__ void multiply_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ product,
                                std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t vectors = n / 4;
    if (i < vectors) {
        const float4 a = reinterpret_cast<const float4*>(x)[i];
        const float4 b = reinterpret_cast<const float4*>(y)[i];
        reinterpret_cast<float4*>(product)[i] = make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w);
    }
    const std::int64_t tail = vectors * 4 + i;
    if (i < n % 4) product[tail] = x[tail] * y[tail];
}

}   // namespace

void multiply_pass(const float* x, const float* y, float* product, std::int64_t n, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const std::int64_t threads_needed = std::max<std::int64_t>(n / 4, n % 4);
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(threads_needed, kThreads));
    multiply_kernel<<<blocks, kThreads, 0, stream>>>(x, y, product, n);
    WB_CHECK_LAUNCH();
}

}   // namespace ch02
