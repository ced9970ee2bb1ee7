// expect: wrong "only one block's sum survives"
//
// Chapter 10, stage 2, with the block's sum stored instead of added: thread 0 of every block writes
// out[0] = its block's sum. Each block overwrites the others, and the result is the sum of whichever
// block stored last. (With `out[0] += sum`, a plain read-modify-write, concurrent blocks lose updates
// instead: a race that a GPU shows and the CPU emulator, whose blocks run whole, mostly hides.) With a
// single block (n <= 256) it is right; the first larger size fails.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    block_sum_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    float v = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        v += in[i];
    v = wb::block_reduce_sum<kThreads>(v, scratch);
    if (threadIdx.x == 0) out[0] = v;   // the bug: a store, where atomicAdd was needed
}

}   // namespace

void sum_2_block_then_atomic(const float* in, float* out, std::int64_t n, cudaStream_t stream)
{
    static const int max_blocks = std::min(wb::resident_blocks(block_sum_kernel, kThreads), 4096);
    const auto blocks = static_cast<unsigned>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(max_blocks, wb::ceil_div<std::int64_t>(n, kThreads))));
    block_sum_kernel<<<blocks, kThreads, 0, stream>>>(in, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
