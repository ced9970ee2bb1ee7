// expect: passed
//
// Chapter 6, stage 4, with cooperative groups: the block is cut into tiles of G threads with
// cg::tiled_partition<G> (G = 1, 2, ..., 32 from the row length, as in the reference), each tile
// does one row (the tile's meta_group_rank() numbers the rows of the block) and its partial sums
// are combined with cg::reduce over the tile, which shuffles among the tile's G lanes only. A
// right kernel: the grader must pass it, on the CPU emulator and on a GPU.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockThreads = 256;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// Tiles of G threads, one row each; kFloat4: K % 4 == 0, so rows can be read as float4.
template <unsigned G, bool kFloat4>
__global__ void __launch_bounds__(kBlockThreads)
    gemv_tile_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, std::int64_t M,
                     std::int64_t K)
{
    const cg::thread_block_tile<G> tile = cg::tiled_partition<G>(cg::this_thread_block());
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * (kBlockThreads / G) + tile.meta_group_rank();
    float sum = 0.0f;
    // No early return: every lane of the tile must reach cg::reduce.
    if (row < M) {
        if constexpr (kFloat4) {
            const auto* a4 = reinterpret_cast<const float4*>(A + row * K);
            const auto* x4 = reinterpret_cast<const float4*>(x);
            for (std::int64_t k = tile.thread_rank(); k < K / 4; k += G) sum += dot4(a4[k], __ldg(&x4[k]));
        } else {
            const float* a = A + row * K;
            for (std::int64_t k = tile.thread_rank(); k < K; k += G) sum += a[k] * __ldg(&x[k]);
        }
    }
    sum = cg::reduce(tile, sum, cg::plus<float>());
    if (row < M && tile.thread_rank() == 0) y[row] = sum;
}

template <unsigned G>
void launch(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M * G, kBlockThreads));
    if (K % 4 == 0) {
        gemv_tile_kernel<G, true><<<blocks, kBlockThreads, 0, stream>>>(A, x, y, M, K);
    } else {
        gemv_tile_kernel<G, false><<<blocks, kBlockThreads, 0, stream>>>(A, x, y, M, K);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace

void gemv_4_subwarp(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    // One float4 per lane where the row allows it: the smallest tile with 4 G >= K, at most a warp.
    const std::int64_t vectors = wb::ceil_div<std::int64_t>(K, 4);
    if (vectors <= 1) {
        launch<1>(A, x, y, M, K, stream);
    } else if (vectors <= 2) {
        launch<2>(A, x, y, M, K, stream);
    } else if (vectors <= 4) {
        launch<4>(A, x, y, M, K, stream);
    } else if (vectors <= 8) {
        launch<8>(A, x, y, M, K, stream);
    } else if (vectors <= 16) {
        launch<16>(A, x, y, M, K, stream);
    } else {
        launch<32>(A, x, y, M, K, stream);
    }
}

}   // namespace WORKBOOK_TRACK
