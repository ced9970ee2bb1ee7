// Chapter 5, stage 6: 64 x 64 tiles, float4 global loads and stores.          (reference solution)
//
// Why it is faster than stage 5: every row segment a block reads or writes is now 256 contiguous
// bytes (two full lines) instead of 128, so the DRAM sees longer runs on both sides, and each
// global access is one 16-byte instruction instead of four 4-byte ones, which halves the
// instructions per byte again. The tile itself is still handled one float at a time (a column of
// the tile is not contiguous), in a padded [64][65] array: element (k, j) sits in bank (k + j) % 32.
// Tiles that are not whole, or matrices whose rows are not 16-byte aligned (cols % 4 != 0 for the
// reads, rows % 4 != 0 for the writes), take a scalar path through the same tile.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 64;
constexpr int kThreadsX = kTile / 4;   // 16 threads x one float4 = one 64-float row of the tile
constexpr int kThreadsY = 16;
constexpr int kThreads = kThreadsX * kThreadsY;

__global__ void __launch_bounds__(kThreads) transpose_vectorized_kernel(const float* __restrict__ in,
                                                                         float* __restrict__ out, std::int64_t rows,
                                                                         std::int64_t cols)
{
    __shared__ float tile[kTile][kTile + 1];

    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int t = ty * kThreadsX + tx;
    const bool whole_tile = row0 + kTile <= rows && col0 + kTile <= cols;

    if (whole_tile && cols % 4 == 0) {
        // 16-byte loads: 4 rows per thread, each warp reads two 256-byte row segments per step.
#pragma unroll
        for (int k = 0; k < kTile; k += kThreadsY) {
            const float4 v = *reinterpret_cast<const float4*>(in + (row0 + ty + k) * cols + col0 + 4 * tx);
            tile[ty + k][4 * tx + 0] = v.x;
            tile[ty + k][4 * tx + 1] = v.y;
            tile[ty + k][4 * tx + 2] = v.z;
            tile[ty + k][4 * tx + 3] = v.w;
        }
    } else {
        // Scalar path: consecutive threads take consecutive floats of a row (still coalesced).
        for (int i = t; i < kTile * kTile; i += kThreads) {
            const int k = i / kTile;
            const int j = i % kTile;
            if (row0 + k < rows && col0 + j < cols) tile[k][j] = in[(row0 + k) * cols + col0 + j];
        }
    }
    __syncthreads();
    if (whole_tile && rows % 4 == 0) {
        // 16-byte stores: output row col0 + j gathers four floats of tile column j.
#pragma unroll
        for (int k = 0; k < kTile; k += kThreadsY) {
            const int j = ty + k;
            const float4 v = make_float4(tile[4 * tx + 0][j], tile[4 * tx + 1][j], tile[4 * tx + 2][j],
                                         tile[4 * tx + 3][j]);
            *reinterpret_cast<float4*>(out + (col0 + j) * rows + row0 + 4 * tx) = v;
        }
    } else {
        for (int i = t; i < kTile * kTile; i += kThreads) {
            const int j = i / kTile;   // tile column = output row
            const int k = i % kTile;   // tile row = output column
            if (col0 + j < cols && row0 + k < rows) out[(col0 + j) * rows + row0 + k] = tile[k][j];
        }
    }
}

}  // namespace

void transpose_6_vectorized(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kThreadsX, kThreadsY);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_vectorized_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}  // namespace WORKBOOK_TRACK
