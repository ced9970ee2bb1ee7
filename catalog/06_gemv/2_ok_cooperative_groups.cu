// expect: passed
//
// Chapter 6, stage 2, written with cooperative groups: one warp per row as in the reference, but
// the warp is a cg::thread_block_tile<32> (its row is the block's first row plus the tile's
// meta_group_rank()), the partial sums are combined with cg::reduce, and a block has 128 threads
// (4 rows) instead of 256. A right kernel: the grader must pass it, on the CPU emulator and on a GPU.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockThreads = 128;
constexpr int kRowsPerBlock = kBlockThreads / 32;

__global__ void __launch_bounds__(kBlockThreads)
    gemv_tile_per_row_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                             std::int64_t M, std::int64_t K)
{
    const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + warp.meta_group_rank();
    if (row >= M) return;   // the whole tile leaves together: every lane of the reduction is there
    const float* a = A + row * K;
    float sum = 0.0f;
    for (std::int64_t k = warp.thread_rank(); k < K; k += warp.size()) sum += a[k] * x[k];
    sum = cg::reduce(warp, sum, cg::plus<float>());
    if (warp.thread_rank() == 0) y[row] = sum;
}

}   // namespace

void gemv_2_warp_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, kRowsPerBlock));
    gemv_tile_per_row_kernel<<<blocks, kBlockThreads, 0, stream>>>(A, x, y, M, K);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
