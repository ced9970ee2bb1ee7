// Catalog, chapter 10, stage 5: a right softmax in log-sum-exp form, with the fast intrinsics.
// expect: passed
//
// The reference's three passes, with two changes of style that the chapter's own softmax stages
// (chapter 3) use: the exponentials are __expf, and the normalisation is out[i] =
// __expf(x[i] - m - __logf(sum)), the form FlashAttention keeps (one log-sum-exp per row, then
// exp(s - lse)) instead of a multiplication by 1 / sum. Its error is a few units of 2^-24 times
// |x - m| + log(sum) (log n at most), far inside the grader's bound 2 (3 D + 5 depth + 32) 2^-24.
// The grader checks all-equal vectors more tightly. It used to allow 4 units of 2^-24 of 1/n, which
// the reference meets because exp(0) is exactly 1 and the sum exactly n; here each output is
// exp(-log n), and with log 65537 = 11.09 an error of a unit in the last place of the argument
// (2^-20) is 16 units of 2^-24 in the output. Measured on an H200: __expf(-__logf(65537)) is 11
// units of 2^-24 above 1/65537 (n = 1000: 2.75 units; expf and logf: about 1 unit). The bound is now
// 2 (3 ln n + 32) units (130 at n = 65537, below the 256 of one element lost). A right kernel: the
// grader must pass it on a GPU (an H100 did, with that bound). (On the CPU emulator __expf and __logf are the accurate library
// functions, the outputs of the all-equal vectors stay within about one unit, and it passes.)
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
        s += __expf(in[i] - m);
    s = wb::block_reduce_sum<kThreads>(s, scratch);
    if (threadIdx.x == 0) atomicAdd(&state[1], s);
}

__global__ void __launch_bounds__(kThreads)
    normalise_kernel(const float* __restrict__ in, float* __restrict__ out, const float* state, std::int64_t n)
{
    const float m = state[0];
    const float log_sum = __logf(state[1]);   // log-sum-exp: m + log_sum; the sum is >= 1
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        out[i] = __expf(in[i] - m - log_sum);
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
