// expect: wrong "subtract the maximum first | is not the maximum"
//
// Chapter 10, stage 5, with a CAS loop that converts floats to ints by value where it must
// reinterpret their bits: (int)value and (float)old, as a double-precision atomicAdd sample reads
// when __longlong_as_double and __double_as_longlong are replaced by casts. The loop ends, but what
// it stores is the integer part of the value written as bits (a tiny denormal, or a NaN for negative
// values): the maximum is garbage. Softmax survives a wrong maximum while no exponential overflows or
// underflows, so the uniform inputs may pass; the inputs far from zero (near 1e4, in [-120, -100))
// must not, and neither must equal inputs, whose outputs are exact only with the exact maximum (on an
// H100 the many blocks' sums of exp(3.25 - garbage) missed 1/n by rounding first).
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>
#include <cmath>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

/// The bug: value conversions ((int)x, (float)bits) where bit reinterpretations were needed.
__device__ __forceinline__ void atomic_max_float(float* address, float value)
{
    int* const bits = reinterpret_cast<int*>(address);
    int old = *bits, assumed;
    do {
        assumed = old;
        old = atomicCAS(bits, assumed, static_cast<int>(fmaxf(value, static_cast<float>(assumed))));
    } while (assumed != old);
}

__global__ void init_kernel(float* state)
{
    state[0] = -INFINITY;   // the running maximum
    state[1] = 0.0f;        // the running sum of exp(x - max)
}

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

__global__ void __launch_bounds__(kThreads) sum_kernel(const float* __restrict__ in, float* state, std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const float m = state[0];   // final: the max pass ended before this launch began
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    float s = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        s += expf(in[i] - m);
    s = wb::block_reduce_sum<kThreads>(s, scratch);
    if (threadIdx.x == 0) atomicAdd(&state[1], s);
}

__global__ void __launch_bounds__(kThreads)
    normalise_kernel(const float* __restrict__ in, float* __restrict__ out, const float* state, std::int64_t n)
{
    const float m = state[0];
    const float inv = 1.0f / state[1];   // the sum is >= 1: the maximum contributes exp(0)
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        out[i] = expf(in[i] - m) * inv;
}

unsigned grid_for(std::int64_t n, int max_blocks)
{
    return static_cast<unsigned>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(max_blocks, wb::ceil_div<std::int64_t>(n, kThreads))));
}

}   // namespace

void softmax_5_whole_vector(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    static const int max_blocks = std::min(wb::resident_blocks(sum_kernel, kThreads), 4096);
    const unsigned blocks = grid_for(n, max_blocks);
    init_kernel<<<1, 1, 0, stream>>>(workspace);
    WB_CHECK_LAUNCH();
    max_kernel<<<blocks, kThreads, 0, stream>>>(in, workspace, n);
    WB_CHECK_LAUNCH();
    sum_kernel<<<blocks, kThreads, 0, stream>>>(in, workspace, n);
    WB_CHECK_LAUNCH();
    normalise_kernel<<<blocks, kThreads, 0, stream>>>(in, out, workspace, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
