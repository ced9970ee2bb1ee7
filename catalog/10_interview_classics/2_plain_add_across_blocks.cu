// Catalog, chapter 10, stage 2: the block sums added into out[0] with a plain +=, not atomicAdd.
// expect: wrong "loses updates"
// emulated: crashed "of the same launch stored at"
//
// The block reduction is right and out[0] is zeroed on the stream, but thread 0 of every block
// finishes with `out[0] += block_sum`: a load, an add and a store, which concurrent blocks
// interleave. Two blocks that load the same old value both store their own sum on top of it, and
// one of the two sums is lost. The learner reasons "only one thread per block touches out[0]", which
// is true, and forgets that the blocks run at the same time. With one block (n <= 256) it is right;
// from 257 elements on a GPU runs the blocks together and loses sums (measured on an H200 with a
// kernel of the same shape: 257 blocks each adding 256 left 256 to 512 of 65792). The CPU emulator
// runs each block whole on a few worker threads, so the window between the load and the store of two
// blocks rarely overlaps there and the sum comes out right; its race checker between blocks reports
// the load of out[0] by a block after another block of the same launch stored it (docs/emulation.md).
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) block_sum_kernel(const float* __restrict__ in, float* out, std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    float v = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        v += in[i];
    v = wb::block_reduce_sum<kThreads>(v, scratch);
    if (threadIdx.x == 0) out[0] += v;   // the bug: a read-modify-write that other blocks interleave
}

}   // namespace

void sum_2_block_then_atomic(const float* in, float* out, std::int64_t n, cudaStream_t stream)
{
    static const int max_blocks = std::min(wb::resident_blocks(block_sum_kernel, kThreads), 4096);
    const auto blocks = static_cast<unsigned>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(max_blocks, wb::ceil_div<std::int64_t>(n, kThreads))));
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    block_sum_kernel<<<blocks, kThreads, 0, stream>>>(in, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
