// Catalog, chapter 10, stage 4: the warp's shuffle loop stops at offset 2, so lane 1's half is never added.
// expect: wrong "values were lost or counted twice"
//
// A grid dot product with the block reduction written out by hand: a shuffle-down loop per warp, the
// warp sums in shared memory, the first warp reduces them, one atomicAdd per block. The loop is
// written `for (offset = 16; offset > 1; offset /= 2)`, an off-by-one in its condition: after offset
// 2, lane 0 holds the sum of the even lanes' shares and lane 1 that of the odd lanes, and the last
// step that adds lane 1 into lane 0 never runs. Both reductions (per warp and across warps) have it,
// so about half of every block's products are lost. n = 1 is right (one value, in lane 0); n = 2
// already is not. The exact checks on small integers must say that values were lost.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = 16; offset > 1; offset /= 2)   // the bug: `offset > 0`
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void __launch_bounds__(kThreads)
    grid_dot_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, std::int64_t n)
{
    __shared__ float warp_sums[kWarps];
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    float v = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        v = fmaf(x[i], y[i], v);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < kWarps ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

}   // namespace

void dot_4_grid_atomic(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream)
{
    static const int max_blocks = std::min(wb::resident_blocks(grid_dot_kernel, kThreads), 4096);
    const auto blocks = static_cast<unsigned>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(max_blocks, wb::ceil_div<std::int64_t>(n, kThreads))));
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    grid_dot_kernel<<<blocks, kThreads, 0, stream>>>(x, y, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
