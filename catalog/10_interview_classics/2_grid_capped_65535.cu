// Catalog, chapter 10, stage 2: one element per thread, the grid capped at 65535 blocks, no grid-stride loop.
// expect: wrong "values were lost"
// emulated: skip "the emulated sizes (at most 65537 elements) need 257 blocks; only the GPU's 2^24 input passes the cap"
//
// The learner remembers "a grid has at most 65535 blocks" (the limit of gridDim.y and z, and of x
// before compute capability 3.0) and clamps the grid to it, but keeps one element per thread: the
// launch covers 65535 * 256 = 16776960 elements and any element past that is never read. Every
// exact check (n <= 65537) is right. The timed input has 2^24 = 16777216 elements, so its last 256
// are dropped: the sum misses 256 values, off by a few units where rounding explains a few
// thousandths. A grader that checks large sums against the worst-case bound
// depth * 2^-24 * sum|x| (depth = n / 128 + 32: about 65552 for 2^24 values) passes it; on inputs
// whose sum is exact in any order (values of +-1, partial sums below 2^24) one lost element shows.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 65535;   // the bug: a cap on the grid, and no loop to cover the rest

__global__ void __launch_bounds__(kThreads)
    block_sum_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    v = wb::block_reduce_sum<kThreads>(v, scratch);
    if (threadIdx.x == 0) atomicAdd(out, v);
}

}   // namespace

void sum_2_block_then_atomic(const float* in, float* out, std::int64_t n, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(std::min(kMaxBlocks, wb::ceil_div<std::int64_t>(n, kThreads)));
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    block_sum_kernel<<<blocks, kThreads, 0, stream>>>(in, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
