// Catalog, chapter 10, stage 5: the running maximum in global memory starts at -1e30 instead of -inf.
// expect: wrong "finite start of the maximum"
//
// The reference stage 5 with one change, in the kernel that resets the state. Every block's maximum is
// still found from -inf, but the atomicMax only replaces the state when it is larger. A vector whose
// values all lie below -1e30 leaves the maximum at -1e30: every exp(x - max) underflows to 0 and the
// outputs are 0 / 0 = NaN. Right for every vector with one value above -1e30, which is nearly every test.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>
#include <cmath>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

/// *address = max(*address, value) for floats, atomically; no NaN (the contract excludes it).
__device__ __forceinline__ void atomic_max_float(float* address, float value)
{
    int* const bits = reinterpret_cast<int*>(address);
    int old = *bits;
    while (__int_as_float(old) < value) {
        const int assumed = old;
        old = atomicCAS(bits, assumed, __float_as_int(value));
        if (old == assumed) break;   // our bits went in
    }
}

__global__ void init_kernel(float* state)
{
    state[0] = -1e30f;   // the bug: the running maximum starts at a finite value
    state[1] = 0.0f;     // the running sum of exp(x - max)
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
