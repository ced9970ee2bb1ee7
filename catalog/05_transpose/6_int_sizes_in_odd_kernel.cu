// Catalog, chapter 5, stage 6: odd shapes sent to a kernel of their own, whose indices are int products.
// expect: crashed "32 bits"
// emulated: skip "the emulated shapes stay far below 2^31 elements, the GPU grader transposes 40007 x 62497"
//
// The reference stage 6 for even shapes; a shape with an odd side, where float2 cannot be used, goes to
// the padded-tile kernel of an earlier exercise, which takes `int rows, int cols` (each side is at most
// 500000, so they fit) and forms `r * cols + c` in int. Every even shape is the reference's, the timed
// 8192 x 12288 included, and every odd shape below 2^31 elements is right. The first case past the int
// range, 40006 x 62498, has even sides and never reaches the odd kernel. The second, 40007 x 62497 (both
// sides odd, 18.6 GiB for both arrays, about 23 GiB free needed), does: from input row 34361 on the load
// index wraps to a negative int, an illegal memory access that the grader must explain as a 32-bit index.
// On a GPU without the memory the case is skipped and this entry passes.
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

/// Odd shapes: the padded 32 x 32 tile of stage 4, from an earlier exercise, with int sizes.
__global__ void transpose_odd_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[32][33];
    const int row0 = blockIdx.y * 32;
    const int col0 = blockIdx.x * 32;
    for (int k = 0; k < 32; k += 8) {
        const int r = row0 + threadIdx.y + k, c = col0 + threadIdx.x;
        if (r < rows && c < cols) tile[threadIdx.y + k][threadIdx.x] = in[r * cols + c];   // the bug: int product
    }
    __syncthreads();
    for (int k = 0; k < 32; k += 8) {
        const int c = col0 + threadIdx.y + k, r = row0 + threadIdx.x;
        if (c < cols && r < rows) out[c * rows + r] = tile[threadIdx.x][threadIdx.y + k];
    }
}

}   // namespace

void transpose_6_vectorized(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    if (rows % 2 == 1 || cols % 2 == 1) {   // no float2 anywhere: the scalar kernel of an earlier stage
        const dim3 odd_grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, 32)),
                            static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, 32)));
        transpose_odd_kernel<<<odd_grid, dim3(32, 8), 0, stream>>>(in, out, static_cast<int>(rows),
                                                                   static_cast<int>(cols));
        WB_CHECK_LAUNCH();
        return;
    }
    const dim3 block(kThreadsX, kThreadsY);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)),    // x: down the rows
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)));   // y: across the columns
    transpose_vectorized_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
