// Catalog, chapter 5, stage 5: a transpose that assumes both sides are multiples of the 32 x 32 tile.
// expect: wrong "past the end"
// emulated: crashed "read past the end of an input array"
//
// No bounds tests at all: every thread loads and stores its four elements whether or not they are
// inside the matrix. Shapes made of whole tiles pass; a 1 x 1 matrix already has the block write 32 x 32
// values into a 1-element output. The writes past the end land in the guard after the output.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_whole_tiles_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                             std::int64_t cols)
{
    __shared__ float tile[kTile][kTile + 1];
    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) tile[ty + k][tx] = in[(row0 + ty + k) * cols + col0 + tx];   // the bug
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows)
        out[(col0 + ty + k) * rows + row0 + tx] = tile[tx][ty + k];   // and here
}

}   // namespace

void transpose_5_multi_element(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kTile, kBlockRows);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_whole_tiles_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
