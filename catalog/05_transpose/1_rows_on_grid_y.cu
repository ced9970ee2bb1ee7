// Catalog, chapter 5, stage 1: blocks of 256 x 1 threads, one input row per block along y.
// expect: crashed "launch was rejected"
//
// The reference stage 1 with a block shape that looks harmless: 256 threads along a row, one row
// per block, so gridDim.y = rows. gridDim.y is limited to 65535 while the contract allows up to
// 500000 rows: the launch for 70001 rows must be rejected.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockX = 256;   // a row of the input per block row
constexpr int kBlockY = 1;     // the bug: one input row per block along y, so gridDim.y = rows

__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                       std::int64_t cols)
{
    const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * kBlockX + threadIdx.x;   // input column
    const std::int64_t r = static_cast<std::int64_t>(blockIdx.y) * kBlockY + threadIdx.y;   // input row
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];   // read coalesced, write strided
}

}   // namespace

void transpose_1_naive(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kBlockX)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kBlockY)));
    transpose_naive_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
