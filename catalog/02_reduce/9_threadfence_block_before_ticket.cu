// Catalog, chapter 2, stage 9: __threadfence_block() where __threadfence() was meant, before the ticket.
// expect: passed
// emulated: crashed "no __threadfence() between the store and the atomic"
//
// The reference stage 9 with a fence of block scope between the partial sum's store and the ticket.
// __threadfence_block() orders the thread's accesses as the threads of its own block see them; the last
// block runs on another SM, for which the store and the atomic may still arrive in either order. As
// with no fence at all, a GPU almost never shows it (every value right, compute-sanitizer silent: a
// known gap of the GPU build, kept here so that it is measured); the emulator's fence checker counts
// only a fence of GPU scope as publishing a block's stores.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;                  // float4 loads in flight per thread
constexpr int kTile = kThreads * kUnroll;   // float4s a block reads per loop iteration
constexpr int kPartialsOffset = 32;         // workspace: [0] the counter, [32 ...] the partial sums
constexpr int kMaxBlocks = 4096;

__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_single_pass_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n,
                              float* __restrict__ partials, unsigned* __restrict__ counter)
{
    __shared__ float scratch[kBlock / 32];
    __shared__ bool is_last;
    const float4* __restrict__ in4 = reinterpret_cast<const float4*>(in);   // cudaMalloc: 16-byte aligned
    const std::int64_t vectors = n / 4;
    const std::int64_t tiles = vectors / kTile;

    float acc = 0.0f;
    // Whole tiles: a block reads kTile consecutive float4s per iteration, kUnroll per thread, all
    // loads issued before the first add. Tiles are dealt out to the blocks round-robin.
    for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const float4* p = in4 + t * kTile + threadIdx.x;
        float4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) v[u] = __ldcs(p + u * kBlock);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) acc += sum4(v[u]);
    }
    // What is left: fewer than kTile float4s, then the last n % 4 floats, spread over the grid.
    const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x;
    const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * kBlock;
    for (std::int64_t i = tiles * kTile + thread; i < vectors; i += threads) acc += sum4(__ldcs(in4 + i));
    for (std::int64_t i = vectors * 4 + thread; i < n; i += threads) acc += in[i];

    acc = wb::block_reduce_sum<kBlock>(acc, scratch);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        __threadfence_block();   // orders this block only: the last block may run on another SM
        is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;

    // The last block: every other block has stored its partial and fenced before taking its ticket.
    __threadfence();
    float v = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += kBlock) v += __ldcg(partials + b);   // from L2, not L1
    v = wb::block_reduce_sum<kBlock>(v, scratch);
    if (threadIdx.x == 0) {
        *out = v;
        *counter = 0;   // ready for the next call (the launches on the stream are ordered)
    }
}

}   // namespace

void sum_9_vectorized_single_pass(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    // No more blocks than tiles (small inputs), no more than the GPU holds at once.
    const std::int64_t tiles = wb::ceil_div<std::int64_t>(n, 4 * kTile);
    static const int max_blocks =
        std::clamp(wb::resident_blocks(reduce_single_pass_kernel<kThreads>, kThreads), 1, kMaxBlocks);
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(tiles, max_blocks));
    auto* counter = reinterpret_cast<unsigned*>(workspace);
    reduce_single_pass_kernel<kThreads>
        <<<blocks, kThreads, 0, stream>>>(in, out, n, workspace + kPartialsOffset, counter);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
