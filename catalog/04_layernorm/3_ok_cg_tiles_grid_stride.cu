// Catalog, chapter 4, stage 3: Welford per warp with cooperative groups tiles and a grid-stride loop over rows (a RIGHT kernel in another style).
// expect: passed
//
// The reference launches one warp per row, as many blocks as the rows need. This port sizes the grid
// to what the GPU holds at once (resident blocks of 256 threads, from an occupancy query) and lets
// each warp, a cg::thread_block_tile<32>, walk the rows with a stride of the whole grid. The merge is
// written with tile.shfl_down: a tree towards lane 0 (lanes whose partner is past the end merge a copy
// of themselves, which only lane 0's result could see, and it never does), then tile.shfl from lane 0
// gives every lane the same statistics. Indices are 64-bit, empty states are merged without 0 / 0.
// Right on every input: the grader must pass it, on the CPU emulator and on a GPU.
#include "04_layernorm/stages.cuh"
#include "04_layernorm/welford.cuh"
#include "common/primitives.cuh"

#include <cooperative_groups.h>

#include <algorithm>

namespace cg = cooperative_groups;

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kTilesPerBlock = kThreads / 32;

/// Chan's merge of two states, a then b; an empty pair stays empty.
__device__ __forceinline__ ch04::Welford merge_states(const ch04::Welford& a, const ch04::Welford& b)
{
    const float count = a.count + b.count;
    if (count == 0.0f) return a;
    const float delta = b.mean - a.mean;
    const float b_share = b.count / count;
    ch04::Welford out;
    out.mean = a.mean + delta * b_share;
    out.m2 = a.m2 + b.m2 + delta * delta * a.count * b_share;
    out.count = count;
    return out;
}

__global__ void __launch_bounds__(kThreads)
    layernorm_tiles_kernel(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                           float* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd, std::int64_t rows,
                           std::int64_t cols, float eps)
{
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const int lane = static_cast<int>(tile.thread_rank());
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kTilesPerBlock;

    for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kTilesPerBlock + tile.meta_group_rank(); row < rows;
         row += stride) {   // the same trip count for every lane of a tile
        const float* xr = x + row * cols;
        float* yr = y + row * cols;

        ch04::Welford state;
        for (std::int64_t c = lane; c < cols; c += 32) ch04::welford_update(state, xr[c]);
        for (int offset = 16; offset > 0; offset /= 2) {
            ch04::Welford other;
            other.mean = tile.shfl_down(state.mean, offset);
            other.m2 = tile.shfl_down(state.m2, offset);
            other.count = tile.shfl_down(state.count, offset);
            state = merge_states(state, other);
        }
        const float mu = tile.shfl(state.mean, 0);
        const float r = rsqrtf(tile.shfl(state.m2, 0) / tile.shfl(state.count, 0) + eps);
        if (lane == 0) {
            mean[row] = mu;
            rstd[row] = r;
        }
        for (std::int64_t c = lane; c < cols; c += 32) yr[c] = (xr[c] - mu) * r * gamma[c] + beta[c];
    }
}

}   // namespace

void layernorm_3_warp_welford(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                              std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    static const int resident = wb::resident_blocks(layernorm_tiles_kernel, kThreads);
    const std::int64_t needed = wb::ceil_div<std::int64_t>(rows, kTilesPerBlock);
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(needed, resident));
    layernorm_tiles_kernel<<<blocks, kThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
