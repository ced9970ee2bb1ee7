// Catalog, chapter 2, stage 10: the last block's loop over the partial sums sets its index instead of stepping it.
// expect: hung "still running"
// emulated: hung "still running"
//
// The reference stage 10 with `b = kBlock` where `b += kBlock` was meant, in the loop where the last
// block gathers the grid's partial sums. After its first step every thread's index is 256: with at most
// 256 blocks the loop ends there and the sum is right; with more, thread b keeps adding partial 256 and
// never leaves the loop. The grid has more than 256 blocks only on a GPU with more than 32 SMs and an
// input of more than 2^20 pairs: on an H100 the kernel hangs, and the grader reports it when its time
// limit runs out. The CPU emulator models as many SMs as an H100 (132) and hangs the same way, after its
// kernel time limit (found by tools/mutate.py among chapter 2's survivors, when the emulator modelled 16
// SMs, at most 128 blocks here, and could not see it).
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;
constexpr int kTile = kThreads * kUnroll;
constexpr int kPartialsOffset = 32;
constexpr int kMaxBlocks = 4096;

/// acc + a.x*b.x + a.y*b.y + a.z*b.z + a.w*b.w, each product fused into its addition (one rounding).
__device__ __forceinline__ float dot4(float4 a, float4 b, float acc)
{
    acc = fmaf(a.x, b.x, acc);
    acc = fmaf(a.y, b.y, acc);
    acc = fmaf(a.z, b.z, acc);
    return fmaf(a.w, b.w, acc);
}

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    dot_single_pass_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                           std::int64_t n, float* __restrict__ partials, unsigned* __restrict__ counter)
{
    __shared__ float scratch[kBlock / 32];
    __shared__ bool is_last;
    const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
    const float4* __restrict__ y4 = reinterpret_cast<const float4*>(y);
    const std::int64_t vectors = n / 4;
    const std::int64_t tiles = vectors / kTile;

    float acc = 0.0f;
    for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const std::int64_t first = t * kTile + threadIdx.x;
        float4 a[kUnroll], b[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            a[u] = __ldcs(x4 + first + u * kBlock);
            b[u] = __ldcs(y4 + first + u * kBlock);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) acc = dot4(a[u], b[u], acc);
    }
    const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x;
    const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * kBlock;
    for (std::int64_t i = tiles * kTile + thread; i < vectors; i += threads)
        acc = dot4(__ldcs(x4 + i), __ldcs(y4 + i), acc);
    for (std::int64_t i = vectors * 4 + thread; i < n; i += threads) acc = fmaf(x[i], y[i], acc);

    acc = wb::block_reduce_sum<kBlock>(acc, scratch);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        __threadfence();
        is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;

    __threadfence();
    float v = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b = kBlock) v += __ldcg(partials + b);   // the bug: = for +=
    v = wb::block_reduce_sum<kBlock>(v, scratch);
    if (threadIdx.x == 0) {
        *out = v;
        *counter = 0;
    }
}

}   // namespace

void dot_10_dot_product(const float* x, const float* y, float* out, std::int64_t n, float* workspace,
                        cudaStream_t stream)
{
    const std::int64_t tiles = wb::ceil_div<std::int64_t>(n, 4 * kTile);
    static const int max_blocks =
        std::clamp(wb::resident_blocks(dot_single_pass_kernel<kThreads>, kThreads), 1, kMaxBlocks);
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(tiles, max_blocks));
    auto* counter = reinterpret_cast<unsigned*>(workspace);
    dot_single_pass_kernel<kThreads>
        <<<blocks, kThreads, 0, stream>>>(x, y, out, n, workspace + kPartialsOffset, counter);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
