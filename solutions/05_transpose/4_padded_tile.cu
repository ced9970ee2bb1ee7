// Chapter 5, stage 4: transpose through a padded [32][33] shared-memory tile.          (reference solution)
//
// Why it is faster than stage 3: with 33 floats per row, element (k, j) of the tile is word
// 33 k + j, in bank (k + j) % 32, so the 32 elements of a column land in 32 different banks and a
// column read is served in one pass instead of 32. Nothing else changed: the difference in time
// between stages 3 and 4 is what the bank conflicts cost.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_padded_tile_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                             std::int64_t cols)
{
    __shared__ float tile[kTile][kTile + 1];   // +1: consecutive rows start one bank apart

    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;

#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) {
        if (row0 + ty + k < rows && col0 + tx < cols) tile[ty + k][tx] = in[(row0 + ty + k) * cols + col0 + tx];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) {   // the column reads are now conflict-free
        if (col0 + ty + k < cols && row0 + tx < rows) out[(col0 + ty + k) * rows + row0 + tx] = tile[tx][ty + k];
    }
}

}   // namespace

void transpose_4_padded_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kTile, kBlockRows);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_padded_tile_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
