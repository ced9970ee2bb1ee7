// Catalog, chapter 5, stage 5: stage 4 handed in again (four elements per thread, not eight).
// expect: wrong "not this stage's idea"
//
// The reference stage 5 gains little over stage 4 on an H100 (the speed rule asks x0.95 there), so the
// grader reads the stage's idea off the launch: elements moved per thread.
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

void transpose_5_multi_element(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kTile, kBlockRows);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_padded_tile_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
