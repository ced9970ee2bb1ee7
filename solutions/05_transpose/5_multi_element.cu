// Chapter 5, stage 5: padded tile, 32 x 8 threads, four elements per thread.          (reference solution)
//
// Why it is faster than stage 4: each thread issues four independent loads before the barrier
// (more bytes in flight per thread), computes the tile's base addresses once for four elements,
// and blocks of 256 threads instead of 1024 let several blocks share a multiprocessor, so while
// one block waits at its barrier the others keep the memory system busy.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;   // threads along y; each covers kTile / kBlockRows = 4 rows of the tile

__global__ void transpose_multi_element_kernel(const float* __restrict__ in, float* __restrict__ out,
                                               std::int64_t rows, std::int64_t cols)
{
    __shared__ float tile[kTile][kTile + 1];

    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;

    const bool col_in = col0 + tx < cols;
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) {   // four independent loads
        if (col_in && row0 + ty + k < rows) tile[ty + k][tx] = in[(row0 + ty + k) * cols + col0 + tx];
    }
    __syncthreads();
    const bool row_in = row0 + tx < rows;
#pragma unroll
    for (int k = 0; k < kTile; k += kBlockRows) {
        if (row_in && col0 + ty + k < cols) out[(col0 + ty + k) * rows + row0 + tx] = tile[tx][ty + k];
    }
}

}  // namespace

void transpose_5_multi_element(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                               cudaStream_t stream)
{
    const dim3 block(kTile, kBlockRows);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_multi_element_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}  // namespace WORKBOOK_TRACK
