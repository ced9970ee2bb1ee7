// Catalog, chapter 2, stage 8: lane 0 of every warp adds the warp's sum into *out with a plain +=, not atomicAdd.
// expect: wrong "wrong result"
// emulated: crashed "of the same launch stored at"
//
// The shuffle reduction is right and *out is set to 0 on the stream, but the sums of the warps meet in
// *out through `*out += warp_sum`: a load, an add and a store. The other warps of the block and of
// other blocks run at the same time, two of them load the same old value, and the sum stored last
// overwrites the other: updates are lost. On an H200 even the one block of n = 33 loses warp 0's sum
// ("the first block(s) were lost"), 3 runs in 3. The learner thinks of the warps one after another. On
// the CPU emulator the warps of a block run one after another and blocks run whole, so the sum comes
// out right there; its race checker between blocks reports the first load of *out by a block after
// another block stored it (the cases of more than 512 elements), with both lines. The fix:
// atomicAdd(out, sum), or one partial per block and a second pass.
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

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_shuffle_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kBlock;
    float acc = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x; i < n; i += stride) {
        acc += in[i];
    }
    acc = warp_sum(acc);
    if (threadIdx.x % 32 == 0) *out += acc;   // the bug: a load, an add and a store that other warps interleave
}

}   // namespace

void sum_8_warp_shuffle(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    (void)workspace;                                                 // one launch: the warp sums meet in *out
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));   // 0 is all-zero bytes: a memset can write it
    static const int max_blocks = std::clamp(wb::resident_blocks(reduce_shuffle_kernel<kThreads>, kThreads), 1, 4096);
    const auto blocks =
        static_cast<unsigned>(std::min<std::int64_t>(wb::ceil_div<std::int64_t>(n, 2 * kThreads), max_blocks));
    reduce_shuffle_kernel<kThreads><<<blocks, kThreads, 0, stream>>>(in, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
