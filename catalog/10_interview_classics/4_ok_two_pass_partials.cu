// Catalog, chapter 10, stage 4: a right grid dot product with no atomic at all: per-block partials, then one block.
// expect: passed
//
// Another classic answer to "make the one-block dot product use the whole GPU", the one that also
// answers the follow-up "and make it reproducible": 512-thread blocks, sized to the GPU, each write
// their partial sum to partials[blockIdx.x], and a second kernel of one 1024-thread block adds the
// partials in a fixed order and stores out[0]. No atomicAdd, so no memset of out[0] either, and the
// same input gives the same bits on every run. The partials live in a device buffer that the
// launcher allocates on its first call and keeps for the later ones (one buffer kept for reuse, not a
// leak). Two launches where the reference has one, the second reading a few kilobytes: right, and
// far faster than one block. The grader must pass it: the stage's idea is the grid, not the atomic.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 512;
constexpr int kFinalThreads = 1024;
constexpr int kMaxBlocks = 4096;

__global__ void __launch_bounds__(kThreads) partial_dot_kernel(const float* __restrict__ x, const float* __restrict__ y,
                                                               float* __restrict__ partials, std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    float v = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        v = fmaf(x[i], y[i], v);
    v = wb::block_reduce_sum<kThreads>(v, scratch);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

__global__ void __launch_bounds__(kFinalThreads)
    final_sum_kernel(const float* __restrict__ partials, int count, float* __restrict__ out)
{
    __shared__ float scratch[kFinalThreads / wb::kWarpSize];
    float v = 0.0f;
    for (int b = threadIdx.x; b < count; b += kFinalThreads) v += partials[b];
    v = wb::block_reduce_sum<kFinalThreads>(v, scratch);
    if (threadIdx.x == 0) out[0] = v;   // a plain store: one block owns out[0]
}

}   // namespace

void dot_4_grid_atomic(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream)
{
    static const int max_blocks = std::min(wb::resident_blocks(partial_dot_kernel, kThreads), kMaxBlocks);
    static float* partials = nullptr;   // allocated once, reused by every later call
    if (!partials) WB_CUDA_CHECK(cudaMalloc(&partials, kMaxBlocks * sizeof(float)));
    const auto blocks = static_cast<int>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(max_blocks, wb::ceil_div<std::int64_t>(n, kThreads))));
    partial_dot_kernel<<<blocks, kThreads, 0, stream>>>(x, y, partials, n);
    WB_CHECK_LAUNCH();
    final_sum_kernel<<<1, kFinalThreads, 0, stream>>>(partials, blocks, out);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
