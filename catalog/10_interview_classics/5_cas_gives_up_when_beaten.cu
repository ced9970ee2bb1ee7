// Catalog, chapter 10, stage 5: a CAS loop that gives up when its CAS fails instead of when it succeeds.
// expect: wrong "elements are wrong"
// emulated: skip "two blocks meet at the CAS only by chance on the emulator's few workers: no reproducible verdict"
//
// The reference stage 5 with `!=` where `==` was meant in atomic_max_float (found by tools/mutate.py). A
// CAS that succeeds makes the loop go round once more and fail against its own value, so without
// contention the maximum is right. A CAS that fails because another block's CAS came first ends the
// loop, and this block's maximum is lost whenever it was the larger one. On an H100 the four blocks of
// n = 1000 finish together, and three runs in three lost the block that holds the maximum -0.0 of the
// values in [-120, -100): the maximum subtracted was near -100 and exp(100) overflowed. In emulation only
// a few blocks run at once; three runs in three passed it, but a race could fail it, so the emulated
// build skips it: a gap of the emulator, named here.
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
        if (old != assumed) break;   // the bug: gives up when another block's CAS came first
    }
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
