// Chapter 10, stage 5: softmax over a whole vector.                     (reference solution)
//
// Three passes, each a grid sized to the GPU, each block reducing before its one atomic:
//   1. the maximum: a float atomicMax per block, built on atomicCAS (CUDA has none for float);
//   2. the sum of exp(x - max): an atomicAdd per block;
//   3. out[i] = exp(x[i] - max) * (1 / sum).
// max and sum live in the workspace; a one-thread kernel sets them (-inf and 0) first, because the
// workspace holds whatever the last call (or the grader's NaN) left there.
//
// The float atomicMax. atomicCAS(address, expected, desired) swaps only if the word still holds
// `expected`, and returns what it found. The loop compares floats (`old < value`) but swaps and
// checks bits: comparing the returned value as a float would loop forever on -0.0 vs +0.0 (equal as
// floats, different bits) and never leave on NaN. A block whose maximum is not above the current one
// issues no atomic at all. The shortcut atomicMax((int*)address, __float_as_int(value)) is right
// only when every value is >= +0.0: the bits of a negative float grow as the float falls, so that
// version keeps the most negative value (see the catalog, and the README).
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
