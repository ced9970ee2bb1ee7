// Catalog, chapter 5, stage 6: stage 5 handed in again (32 x 32 tiles, scalar accesses).
// expect: wrong "not this stage's idea"
//
// The reference stage 6 gains only a few percent over stage 5 on an H100, so the speed rule alone asks
// for less than a copy of stage 5 delivers. The grader reads the tile per block off the launch.
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
        if (row_inside && col0 + ty + k < cols) out[(col0 + ty + k) * rows + row0 + tx] = tile[tx][ty + k];
    }
}

}   // namespace

void transpose_6_vectorized(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kTile, kBlockRows);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_multi_element_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
