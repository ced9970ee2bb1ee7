// Catalog, chapter 10, stage 3: stage 4's grid handed in as stage 3.
// expect: wrong "not this stage's idea"
// emulated: wrong "not this stage's idea"
//
// Right, and far faster than one block: stage 3 has no speed target (it is the slow classic whose
// cost stage 4 removes), so only the check of its idea, one block, can tell that the learner skipped
// it. The launch facts show a grid of many blocks.
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

void dot_3_one_block(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream)
{
    static const int max_blocks = std::min(wb::resident_blocks(grid_dot_kernel, kThreads), 4096);
    const auto blocks = static_cast<unsigned>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(max_blocks, wb::ceil_div<std::int64_t>(n, kThreads))));
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    grid_dot_kernel<<<blocks, kThreads, 0, stream>>>(x, y, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
