// Catalog, chapter 2, stage 8: one launch, every warp's sum stored, the barrier, then a fence and the ticket.
// expect: passed
//
// A right single-pass stage 8 (the fair counterpart of `8_last_block_warp_sums_no_fence`): lane 0 of
// every warp stores its warp's sum, a barrier, and thread 0 fences before it takes the ticket. A fence
// after the barrier publishes the stores of the whole block, not only thread 0's: the barrier orders the
// warps' stores before the fence (the memory model's cumulativity), and the fence orders them before the
// atomic for every SM. The fence checker must accept it.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kSumsOffset = 32;   // workspace: [0] the counter, [32 ...] one sum per warp of the grid
constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
    return v;
}

__global__ void __launch_bounds__(kThreads)
    single_pass_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n,
                       float* __restrict__ warp_sums, unsigned* __restrict__ counter)
{
    __shared__ float block_sums[kWarps];
    __shared__ bool is_last;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    float acc = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        acc += in[i];
    acc = warp_sum(acc);
    if (lane == 0) warp_sums[blockIdx.x * kWarps + warp] = acc;   // every warp's sum to global memory
    __syncthreads();                                              // all of them stored
    if (threadIdx.x == 0) {
        __threadfence();   // publishes the block's stores: the barrier ordered them before this fence
        is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;

    __threadfence();
    float v = 0.0f;
    for (unsigned i = threadIdx.x; i < gridDim.x * kWarps; i += kThreads) v += __ldcg(warp_sums + i);
    v = warp_sum(v);
    if (lane == 0) block_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < kWarps ? block_sums[lane] : 0.0f);
        if (lane == 0) {
            *out = v;
            *counter = 0;
        }
    }
}

}   // namespace

void sum_8_warp_shuffle(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    static const int max_blocks = std::clamp(wb::resident_blocks(single_pass_kernel, kThreads), 1, 4096);
    const auto blocks =
        static_cast<unsigned>(std::min<std::int64_t>(wb::ceil_div<std::int64_t>(n, 2 * kThreads), max_blocks));
    single_pass_kernel<<<blocks, kThreads, 0, stream>>>(in, out, n, workspace + kSumsOffset,
                                                        reinterpret_cast<unsigned*>(workspace));
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
