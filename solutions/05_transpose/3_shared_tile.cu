// Chapter 5, stage 3: transpose through a 32 x 32 shared-memory tile (unpadded).          (reference solution)
//
// Why it is faster than stage 2: both global accesses are now coalesced. The block reads a tile
// row by row, and writes the transposed tile row by row; the reordering happens in shared memory,
// which has no lines or sectors to waste. It is still far from the copy bandwidth: reading the tile
// down a column puts all 32 lanes of a warp on the same shared-memory bank (a 32-way conflict,
// measured by the next stage).
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;

__global__ void transpose_shared_tile_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                             std::int64_t cols)
{
    __shared__ float tile[kTile][kTile];   // row k starts at bank (32 k) % 32 = 0: every column is one bank

    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;   // the tile's first input row
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;   // the tile's first input column
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;

    // Coalesced read of input row row0 + ty.
    if (row0 + ty < rows && col0 + tx < cols) tile[ty][tx] = in[(row0 + ty) * cols + col0 + tx];
    __syncthreads();
    // Coalesced write of output row col0 + ty (= input column col0 + ty), columns row0 + tx.
    // tile[tx][ty]: 32 lanes read one column, 128 bytes apart, all in the same bank.
    if (col0 + ty < cols && row0 + tx < rows) out[(col0 + ty) * rows + row0 + tx] = tile[tx][ty];
}

}  // namespace

void transpose_3_shared_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kTile, kTile);   // one thread per element of the tile
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_shared_tile_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}  // namespace WORKBOOK_TRACK
