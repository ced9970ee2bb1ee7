// Catalog, chapter 5, stage 6: right, with 32-bit offsets counted from a 64-bit pointer to the block's tile.
// expect: passed
// emulated: passed ""
//
// The reference stage 6, where each block first forms a pointer to its tile of the input and of the output
// in 64-bit arithmetic (in + row0 * cols + col0), and then counts the offsets inside the tile in
// std::uint32_t: row k of the tile starts k * cols floats further, and k * cols stays below 64 x 500000,
// far below 2^32. This is how fast kernels save registers legally: only the part of an index that can
// grow past 2^31 needs 64 bits. Right for every shape, the three past 2^31 and 2^32 included, so the
// graders must pass it; as fast as the reference.
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
    // 64-bit tile bases; offsets inside a tile stay below 64 x 500000, so 32 bits hold them.
    const float* tile_in = in + row0 * cols + col0;
    float* tile_out = out + col0 * rows + row0;
    const std::uint32_t in_pitch = static_cast<std::uint32_t>(cols), out_pitch = static_cast<std::uint32_t>(rows);

    if (whole_tile && cols % 2 == 0) {
        // 8-byte loads: 8 rows per thread; a warp reads one 256-byte row segment per step.
#pragma unroll
        for (int k = 0; k < kTile; k += kThreadsY) {
            const float2 v = *reinterpret_cast<const float2*>(tile_in + (ty + k) * in_pitch + 2 * tx);
            tile[ty + k][2 * tx + 0] = v.x;
            tile[ty + k][2 * tx + 1] = v.y;
        }
    } else {
        // Scalar path: consecutive threads take consecutive floats of a row (still coalesced).
        for (int i = t; i < kTile * kTile; i += kThreads) {
            const int k = i / kTile;
            const int j = i % kTile;
            if (row0 + k < rows && col0 + j < cols) tile[k][j] = tile_in[k * in_pitch + j];
        }
    }
    __syncthreads();   // the branches above are the same for the whole block, so all threads get here
    if (whole_tile && rows % 2 == 0) {
        // 8-byte stores: output row col0 + j gathers two floats of tile column j.
#pragma unroll
        for (int k = 0; k < kTile; k += kThreadsY) {
            const int j = ty + k;
            const float2 v = make_float2(tile[2 * tx + 0][j], tile[2 * tx + 1][j]);
            *reinterpret_cast<float2*>(tile_out + j * out_pitch + 2 * tx) = v;
        }
    } else {
        for (int i = t; i < kTile * kTile; i += kThreads) {
            const int j = i / kTile;   // tile column = output row
            const int k = i % kTile;   // tile row = output column
            if (col0 + j < cols && row0 + k < rows) tile_out[j * out_pitch + k] = tile[k][j];
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
