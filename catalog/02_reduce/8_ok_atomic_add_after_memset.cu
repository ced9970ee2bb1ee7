// expect: passed
//
// Chapter 2, stage 8, in one kernel launch: each block's thread 0 adds its block sum into *out with
// atomicAdd, and the launcher first sets *out to 0 with cudaMemsetAsync on the same stream, so the
// memset is ordered before the kernel. The sum's rounding depends on the order in which the blocks'
// atomics land, which changes from run to run; the tolerance covers any order of the same partial
// sums. A right kernel (the twin of 8_atomic_add_into_unset_out, which forgets the memset): the grader
// must pass it, on the CPU emulator and on a GPU.
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
    if (threadIdx.x == 0) atomicAdd(out, acc);   // *out was set to 0 by the launcher, on this stream
}

}   // namespace

void sum_8_warp_shuffle(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    (void)workspace;   // one launch: the block sums meet in *out through atomicAdd
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));   // 0 is all-zero bytes: a memset can write it
    static const int max_blocks = std::clamp(wb::resident_blocks(reduce_shuffle_kernel<kThreads>, kThreads), 1, 4096);
    const auto blocks =
        static_cast<unsigned>(std::min<std::int64_t>(wb::ceil_div<std::int64_t>(n, 2 * kThreads), max_blocks));
    reduce_shuffle_kernel<kThreads><<<blocks, kThreads, 0, stream>>>(in, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
