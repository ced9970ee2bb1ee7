// Catalog, chapter 5, stage 6: the element offsets held in 32-bit unsigned ints, to save registers.
// expect: wrong "held in an unsigned int"
// emulated: skip "the emulated shapes stay far below 2^31 elements, the GPU grader transposes 66002 x 69998"
//
// The reference stage 6, where the learner keeps each element offset in a std::uint32_t: one register
// instead of two, and "an unsigned int holds 4.29 billion elements, more than 2^31". The offsets are
// computed in std::int64_t and then cut to their low 32 bits. Every shape up to 40006 x 62498 (2.5e9
// elements) stays below 2^32, so this passes every case of the int class, the two shapes past 2^31
// included. The case past the unsigned range (66002 x 69998, 4.62e9 elements, 34.4 GiB for both arrays,
// about 39 GiB free needed) wraps both sides: loads from input index 2^32 on read the start of the
// input again, and stores from output row 65073 on overwrite output rows 0 to about 4924. Every address
// stays inside the arrays, so nothing crashes: the output is wrong, and the grader must name the wrap at
// 2^32 (from the output rows that the wrapped stores did not reach, wrong from the first element read
// past input index 2^32). On a GPU without the memory the case is skipped and this entry passes.
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
            const std::uint32_t src = (row0 + ty + k) * cols + col0 + 2 * tx;   // the bug: wraps at 2^32
            const float2 v = *reinterpret_cast<const float2*>(in + src);
            tile[ty + k][2 * tx + 0] = v.x;
            tile[ty + k][2 * tx + 1] = v.y;
        }
    } else {
        // Scalar path: consecutive threads take consecutive floats of a row (still coalesced).
        for (int i = t; i < kTile * kTile; i += kThreads) {
            const int k = i / kTile;
            const int j = i % kTile;
            const std::uint32_t src = (row0 + k) * cols + col0 + j;
            if (row0 + k < rows && col0 + j < cols) tile[k][j] = in[src];
        }
    }
    __syncthreads();   // the branches above are the same for the whole block, so all threads get here
    if (whole_tile && rows % 2 == 0) {
        // 8-byte stores: output row col0 + j gathers two floats of tile column j.
#pragma unroll
        for (int k = 0; k < kTile; k += kThreadsY) {
            const int j = ty + k;
            const float2 v = make_float2(tile[2 * tx + 0][j], tile[2 * tx + 1][j]);
            const std::uint32_t dst = (col0 + j) * rows + row0 + 2 * tx;   // the same on the store side
            *reinterpret_cast<float2*>(out + dst) = v;
        }
    } else {
        for (int i = t; i < kTile * kTile; i += kThreads) {
            const int j = i / kTile;   // tile column = output row
            const int k = i % kTile;   // tile row = output column
            const std::uint32_t dst = (col0 + j) * rows + row0 + k;
            if (col0 + j < cols && row0 + k < rows) out[dst] = tile[k][j];
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
