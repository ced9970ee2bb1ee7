// Chapter 5, stage 3: transpose through a 32 x 32 shared-memory tile (unpadded).          (reference solution)
//
// What changes from stage 2: both global accesses are now coalesced. The block reads a tile row by
// row and writes the transposed tile row by row; the reordering happens in shared memory, which
// has no lines or sectors to waste. Why it is barely faster: reading the tile down a column puts
// all 32 lanes of a warp on the same shared-memory bank, so every such read is served one lane at a
// time (a 32-way bank conflict). The next stage removes it and shows what it cost.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;   // 32 x 8 threads: each thread copies kTile / kBlockRows = 4 elements

__global__ void transpose_shared_tile_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                             std::int64_t cols)
{
    __shared__ float tile[kTile][kTile];   // word 32 k + j is in bank j: a whole column in one bank

    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;   // the tile's first input row
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;   // the tile's first input column
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;

    // Coalesced reads of input rows row0 + ty + k, columns col0 + tx.
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) {
        if (row0 + ty + k < rows && col0 + tx < cols) tile[ty + k][tx] = in[(row0 + ty + k) * cols + col0 + tx];
    }
    __syncthreads();   // every thread reaches it: the bounds tests above do not return early
    // Coalesced writes of output rows col0 + ty + k (input columns), columns row0 + tx.
    // tile[tx][ty + k]: the 32 lanes read one column, 128 bytes apart, all in the same bank.
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) {
        if (col0 + ty + k < cols && row0 + tx < rows) out[(col0 + ty + k) * rows + row0 + tx] = tile[tx][ty + k];
    }
}

}   // namespace

void transpose_3_shared_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kTile, kBlockRows);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_shared_tile_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
