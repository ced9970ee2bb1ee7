// Catalog, chapter 10, stage 5: one partial sum per block kept in the workspace, which holds 64 floats.
// expect: wrong "past the end"
//
// The maximum is the reference's (a CAS atomicMax per block), but the learner wants a sum that does
// not depend on the order of the atomics, so the sum pass stores block b's sum in workspace[2 + b]
// and a one-block kernel adds them in a fixed order. The grid is sized to the GPU (up to 4096
// blocks), and the workspace holds ch10::kWorkspaceFloats = 64 floats (stages.cuh): from 63 blocks on
// (n > 62 * 256) the partial sums are written past its end, into memory that belongs to nobody, or
// to someone else outside the grader. The softmax is right. The grader fills the workspace with NaN
// before each call but never reads it back: it must check the workspace's bounds as it checks the
// output's.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>
#include <cmath>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ void atomic_max_float(float* address, float value)
{
    int* const bits = reinterpret_cast<int*>(address);
    int old = *bits;
    while (__int_as_float(old) < value) {
        const int assumed = old;
        old = atomicCAS(bits, assumed, __float_as_int(value));
        if (old == assumed) break;
    }
}

__global__ void init_kernel(float* state) { state[0] = -INFINITY; }

__global__ void __launch_bounds__(kThreads) max_kernel(const float* __restrict__ in, float* state, std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    float m = -INFINITY;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        m = fmaxf(m, in[i]);
    m = wb::block_reduce_max<kThreads>(m, scratch);
    if (threadIdx.x == 0) atomic_max_float(&state[0], m);
}

__global__ void __launch_bounds__(kThreads)
    partial_sum_kernel(const float* __restrict__ in, float* state, std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const float m = state[0];
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    float s = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        s += expf(in[i] - m);
    s = wb::block_reduce_sum<kThreads>(s, scratch);
    if (threadIdx.x == 0) state[2 + blockIdx.x] = s;   // the bug: no room for more than 62 blocks
}

__global__ void __launch_bounds__(kThreads) total_kernel(float* state, int partials)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    float s = 0.0f;
    for (int b = threadIdx.x; b < partials; b += kThreads) s += state[2 + b];
    s = wb::block_reduce_sum<kThreads>(s, scratch);
    if (threadIdx.x == 0) state[1] = s;
}

__global__ void __launch_bounds__(kThreads)
    normalise_kernel(const float* __restrict__ in, float* __restrict__ out, const float* state, std::int64_t n)
{
    const float m = state[0];
    const float inv = 1.0f / state[1];
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        out[i] = expf(in[i] - m) * inv;
}

}   // namespace

void softmax_5_whole_vector(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    static const int max_blocks = std::min(wb::resident_blocks(partial_sum_kernel, kThreads), 4096);
    const auto blocks = static_cast<unsigned>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(max_blocks, wb::ceil_div<std::int64_t>(n, kThreads))));
    init_kernel<<<1, 1, 0, stream>>>(workspace);
    WB_CHECK_LAUNCH();
    max_kernel<<<blocks, kThreads, 0, stream>>>(in, workspace, n);
    WB_CHECK_LAUNCH();
    partial_sum_kernel<<<blocks, kThreads, 0, stream>>>(in, workspace, n);
    WB_CHECK_LAUNCH();
    total_kernel<<<1, kThreads, 0, stream>>>(workspace, static_cast<int>(blocks));
    WB_CHECK_LAUNCH();
    normalise_kernel<<<blocks, kThreads, 0, stream>>>(in, out, workspace, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
