// Catalog, chapter 1, stage 3: the output cleared with a cudaMemset on the legacy default stream.
// expect: wrong "another stream than the one it was given"
//
// A "harmless" clear of y before the fused kernel, written with the synchronous cudaMemset: it runs on
// the legacy default stream, which the grader's non-blocking stream does not wait for. The kernel then
// overwrites every element, so the values are right; the launch ledger names the memset.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

__device__ __forceinline__ float activate(float x, ch01::Activation act)
{
    return act == ch01::Activation::relu ? fmaxf(x, 0.0f) : 1.0f / (1.0f + __expf(-x));
}

__global__ void fused_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ y,
                             std::int64_t n, ch01::Activation act)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = activate(a[i] + b[i], act);
    }
}

}   // namespace

void add_act_3_fused(const float* a, const float* b, float* y, std::int64_t n, ch01::Activation act,
                     cudaStream_t stream)
{
    WB_CUDA_CHECK(cudaMemset(y, 0, n * sizeof(float)));   // the bug: no stream, so the legacy default stream
    constexpr int kThreads = 256;
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(wb::ceil_div<std::int64_t>(n, kThreads), 8192));
    fused_kernel<<<blocks, kThreads, 0, stream>>>(a, b, y, n, act);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
