// Catalog, chapter 2, stage 8: the block sums added into *out with atomicAdd, *out never set to 0.
// expect: wrong "without setting it to 0 first"
//
// One launch instead of two: each block's thread 0 adds its sum into *out. Right, if *out starts at 0;
// the launcher never sets it (a cudaMemsetAsync on the stream before the kernel), and the grader fills
// out with NaN before each call: NaN + x is NaN. On a GPU that is the hardware's canonical NaN, named by
// the NaN hint; on a CPU the sum keeps the poison's bits and would read as "never written", so the
// grader runs the call again with 0 in *out, sees the right sum and names the missing initialisation.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullMask = 0xffffffffu;

/// The sum of the 32 lanes' values, in lane 0 (the other lanes hold partial sums).
__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
    return v;
}

/// The sum over the block, valid in thread 0. Every thread of the block must call it.
template <int kBlock>
__device__ __forceinline__ float block_sum(float v)
{
    constexpr int kWarps = kBlock / 32;
    __shared__ float warp_sums[kWarps];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);   // every warp at once, in registers
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();   // the one barrier: the warp sums are in shared memory
    if (warp == 0) {
        v = lane < kWarps ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
    }
    return v;
}

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_shuffle_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kBlock;
    float acc = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x; i < n; i += stride) {
        acc += in[i];
    }
    acc = block_sum<kBlock>(acc);
    if (threadIdx.x == 0) atomicAdd(out, acc);   // every block adds into *out, which nobody set to 0
}

}   // namespace

void sum_8_warp_shuffle(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    (void)workspace;   // one launch: the block sums meet in *out through atomicAdd
    static const int max_blocks = std::clamp(wb::resident_blocks(reduce_shuffle_kernel<kThreads>, kThreads), 1, 4096);
    const auto blocks =
        static_cast<unsigned>(std::min<std::int64_t>(wb::ceil_div<std::int64_t>(n, 2 * kThreads), max_blocks));
    reduce_shuffle_kernel<kThreads><<<blocks, kThreads, 0, stream>>>(in, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
