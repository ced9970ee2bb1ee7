// Catalog, chapter 5, stage 4: a transpose that is only right for square matrices.
// expect: wrong "past the end"
//
// The output is cols x rows, so its row length is rows; this kernel strides the output by cols, which
// is the same number only when the matrix is square. Square shapes pass; the first non-square one
// (1 x 7) scatters its seven values up to 42 elements into a 7-element output, past its end, which the
// guard after every grader buffer reports.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;

__global__ void transpose_square_only_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                             std::int64_t cols)
{
    __shared__ float tile[kTile][kTile + 1];
    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    if (row0 + ty < rows && col0 + tx < cols) tile[ty][tx] = in[(row0 + ty) * cols + col0 + tx];
    __syncthreads();
    // the bug: the output row length is rows, not cols
    if (col0 + ty < cols && row0 + tx < rows) out[(col0 + ty) * cols + row0 + tx] = tile[tx][ty];
}

}   // namespace

void transpose_4_padded_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kTile, kTile);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_square_only_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
