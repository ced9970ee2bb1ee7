// Catalog, chapter 2, stage 8: the second warp reduction called by the first eight lanes only.
// expect: passed
// emulated: crashed "returned from the kernel without calling it"
//
// After the warp sums are in shared memory, only the lanes that hold one (lane < 8) enter the final
// warp reduction, whose shuffles name all 32 lanes in their mask. The other lanes never call them: a
// shuffle reading them is undefined. On a GPU the inactive lanes' registers usually still hold the 0
// they were given, so lane 0 gets the right sum and the output does not show it; and compute-sanitizer
// (memcheck, racecheck, synccheck of CUDA 13.0, on an H100) reports nothing either, so a GPU build
// passes it: a known gap, kept here so that it is measured. The emulator waits for the lanes of the
// mask and finds them returned.
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
        if (lane < kWarps) v = warp_sum(v);   // the bug: full-mask shuffles called by 8 lanes
    }
    return v;
}

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_shuffle_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kBlock;
    float acc = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x; i < n; i += stride) {
        acc += in[i];
    }
    acc = block_sum<kBlock>(acc);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

}   // namespace

void sum_8_warp_shuffle(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    static const int max_blocks = std::clamp(wb::resident_blocks(reduce_shuffle_kernel<kThreads>, kThreads), 1, 4096);
    const auto blocks =
        static_cast<unsigned>(std::min<std::int64_t>(wb::ceil_div<std::int64_t>(n, 2 * kThreads), max_blocks));
    if (blocks == 1) {
        reduce_shuffle_kernel<kThreads><<<1, kThreads, 0, stream>>>(in, out, n);
        WB_CHECK_LAUNCH();
        return;
    }
    reduce_shuffle_kernel<kThreads><<<blocks, kThreads, 0, stream>>>(in, workspace, n);
    WB_CHECK_LAUNCH();
    reduce_shuffle_kernel<kThreads><<<1, kThreads, 0, stream>>>(workspace, out, blocks);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
