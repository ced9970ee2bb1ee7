// Chapter 5, stage 6: 64 x 64 tiles, float2 global loads and stores, tiles walked down the columns.          (reference solution)
//
// Why it is faster than stage 5: a warp now reads and writes 64 floats (256 contiguous bytes, two
// full lines) of a row per instruction with 8-byte accesses, so the DRAM sees runs twice as long
// on both sides and the kernel issues half the global memory instructions per byte; each thread
// moves 16 elements. And the grid walks the tiles down the columns of the input (blockIdx.x runs
// along the rows): blocks that run at the same time then write neighbouring pieces of the SAME
// output rows, so the writes reach memory as long runs, and the scattering moves to the reads,
// which tolerate it better (the lesson of stage 2 again).
// Inside the tile the pairs are split into single floats (a padded [64][65] tile: element (k, j)
// is in bank (k + j) % 32), since a column of the tile is not contiguous. float2 accesses need
// 8-byte aligned addresses: a row of `in` starts at in + r * cols, aligned only when cols is even
// (rows for `out`), so such matrices, and partial tiles at the edges, take a scalar path through
// the same tile. (float4 accesses with 16 threads per tile row measured slower; see the README.)
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 64;
constexpr int kThreadsX = kTile / 2;   // 32 threads x one float2 = one 64-float row of the tile
constexpr int kThreadsY = 8;
constexpr int kThreads = kThreadsX * kThreadsY;
constexpr int kMinBlocks = 8;   // ask the compiler for <= 32 registers, so 8 blocks (2048 threads) fit per SM

__global__ void __launch_bounds__(kThreads, kMinBlocks)
    transpose_vectorized_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                std::int64_t cols)
{
    __shared__ float tile[kTile][kTile + 1];

    // blockIdx.x runs down the rows: consecutive blocks take the tiles below each other.
    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int t = ty * kThreadsX + tx;
    const bool whole_tile = row0 + kTile <= rows && col0 + kTile <= cols;

    if (whole_tile && cols % 2 == 0) {
        // 8-byte loads: 8 rows per thread; a warp reads one 256-byte row segment per step.
#pragma unroll
        for (int k = 0; k < kTile; k += kThreadsY) {
            const float2 v = *reinterpret_cast<const float2*>(in + (row0 + ty + k) * cols + col0 + 2 * tx);
            tile[ty + k][2 * tx + 0] = v.x;
            tile[ty + k][2 * tx + 1] = v.y;
        }
    } else {
        // Scalar path: consecutive threads take consecutive floats of a row (still coalesced).
        for (int i = t; i < kTile * kTile; i += kThreads) {
            const int k = i / kTile;
            const int j = i % kTile;
            if (row0 + k < rows && col0 + j < cols) tile[k][j] = in[(row0 + k) * cols + col0 + j];
        }
    }
    __syncthreads();   // the branches above are the same for the whole block, so all threads get here
    if (whole_tile && rows % 2 == 0) {
        // 8-byte stores: output row col0 + j gathers two floats of tile column j.
#pragma unroll
        for (int k = 0; k < kTile; k += kThreadsY) {
            const int j = ty + k;
            const float2 v = make_float2(tile[2 * tx + 0][j], tile[2 * tx + 1][j]);
            *reinterpret_cast<float2*>(out + (col0 + j) * rows + row0 + 2 * tx) = v;
        }
    } else {
        for (int i = t; i < kTile * kTile; i += kThreads) {
            const int j = i / kTile;   // tile column = output row
            const int k = i % kTile;   // tile row = output column
            if (col0 + j < cols && row0 + k < rows) out[(col0 + j) * rows + row0 + k] = tile[k][j];
        }
    }
}

}   // namespace

void transpose_6_vectorized(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kThreadsX, kThreadsY);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)),    // x: down the rows
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)));   // y: across the columns
    transpose_vectorized_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
