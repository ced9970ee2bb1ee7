// Chapter 10, stage 2: a block reduction, then one atomicAdd per block.   (reference solution)
//
// Why it is fast: each thread first sums its share of the input in a register (a grid-stride loop:
// plain loads, full bandwidth), the block combines its threads' sums with shuffles
// (wb::block_reduce_sum: no atomic, one barrier), and only thread 0 touches out[0]. With a grid
// sized to the GPU that is a few hundred atomics on the one address instead of n: they no longer
// limit anything, and the sum runs at the speed of reading the input.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    block_atomic_sum_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    float v = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        v += in[i];
    v = wb::block_reduce_sum<kThreads>(v, scratch);
    if (threadIdx.x == 0) atomicAdd(out, v);   // one atomic per block
}

}   // namespace

void sum_2_block_then_atomic(const float* in, float* out, std::int64_t n, cudaStream_t stream)
{
    static const int max_blocks = std::min(wb::resident_blocks(block_atomic_sum_kernel, kThreads), 4096);
    const auto blocks = static_cast<unsigned>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(max_blocks, wb::ceil_div<std::int64_t>(n, kThreads))));
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    block_atomic_sum_kernel<<<blocks, kThreads, 0, stream>>>(in, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
