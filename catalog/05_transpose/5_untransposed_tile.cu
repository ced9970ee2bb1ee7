// Catalog, chapter 5, stage 5: the tile read back untransposed, tile[ty + k][tx] instead of tile[tx][ty + k].
// expect: wrong "transposed inside each 32 x 32 tile"
// emulated: crashed "read shared memory that no thread wrote"
//
// The tiles land in the right places of the output, but each one is copied as it was read: the
// transpose within the tile is missing. The first shapes that fail are too small to show it (a
// 1 x 7 matrix fills one corner of a tile, the rest comes from shared memory nobody wrote), so the
// grader must find the pattern on a shape of whole tiles and name it, not a tail or an overflow
// (the inputs hold infinities that end up in the wrong places). The CPU emulator stops it earlier,
// at the first read of a tile element that no thread stored (a partial tile at the edge).
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 4;   // 32 x 4 threads: each covers kTile / kBlockRows = 8 rows of the tile

__global__ void transpose_multi_element_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                               std::int64_t cols)
{
    __shared__ float tile[kTile][kTile + 1];

    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;

    const bool col_inside = col0 + tx < cols;
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) {   // eight independent loads
        if (col_inside && row0 + ty + k < rows) tile[ty + k][tx] = in[(row0 + ty + k) * cols + col0 + tx];
    }
    __syncthreads();
    const bool row_inside = row0 + tx < rows;
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) {
        // the bug: the tile is read back with the indices it was written with, so nothing is transposed
        if (row_inside && col0 + ty + k < cols) out[(col0 + ty + k) * rows + row0 + tx] = tile[ty + k][tx];
    }
}

}   // namespace

void transpose_5_multi_element(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kTile, kBlockRows);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_multi_element_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
