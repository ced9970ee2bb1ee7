// expect: wrong "sends it down the"
//
// Chapter 10, stage 5, with the int-ordering float atomicMax (atomicMax on the int bits for
// non-negative values, atomicMin on the unsigned bits for negative ones), choosing the path with
// `value >= 0.0f`. -0.0 >= 0.0f is true, so -0.0 takes the int path, where its bits are INT_MIN and
// never win: when -0.0 is the maximum, the maximum found is the next value down. Softmax does not
// care which value is subtracted unless the exponential overflows, so the grader's input puts every
// other value near -100: exp(0 - (-100)) overflows. The test must be signbit(value).
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>
#include <cmath>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

/// The int-ordering trick, with the bug: -0.0 goes down the int path.
__device__ __forceinline__ void atomic_max_float(float* address, float value)
{
    if (value >= 0.0f)
        atomicMax(reinterpret_cast<int*>(address), __float_as_int(value));
    else
        atomicMin(reinterpret_cast<unsigned*>(address), __float_as_uint(value));
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
