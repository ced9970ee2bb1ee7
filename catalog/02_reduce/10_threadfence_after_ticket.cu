// Catalog, chapter 2, stage 10: the fence after the ticket instead of before it.
// expect: passed
// emulated: crashed "no __threadfence() between the store and the atomic"
//
// The reference stage 10 with thread 0's __threadfence() moved below its atomicAdd. A fence orders
// what comes before it against what comes after it; here both the partial's store and the ticket come
// before it, so they may reach the other SMs in either order, and the last block may add a partial
// that is not there yet. A GPU almost never shows it (every value right, compute-sanitizer silent: a
// known gap of the GPU build, kept here so that it is measured); the emulator's fence checker sees the
// last block read a partial announced by a ticket that no fence preceded.
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
        is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
        __threadfence();   // too late: the ticket may already be seen before the partial
    }
    __syncthreads();
    if (!is_last) return;

    __threadfence();
    float v = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += kBlock) v += __ldcg(partials + b);
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
