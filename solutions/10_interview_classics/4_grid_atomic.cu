// Chapter 10, stage 4: the dot product with a grid, one atomicAdd per block. (reference solution)
//
// Stage 3's block repeated over a grid sized to the GPU (wb::resident_blocks: every SM holds as many
// blocks as fit at once). The grid-stride loop starts at the block's first element and steps by the
// whole grid, so every element is read exactly once, the tail included. Each block reduces its
// products and adds them into out[0], which the launcher set to 0 first: a few hundred atomics,
// and every SM streaming its share of x and y.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    grid_dot_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    float v = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        v = fmaf(x[i], y[i], v);
    v = wb::block_reduce_sum<kThreads>(v, scratch);
    if (threadIdx.x == 0) atomicAdd(out, v);
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
