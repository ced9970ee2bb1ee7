// Catalog, chapter 5, stage 1: blocks of 32 x 4 threads, one thread per element, rows on gridDim.y.
// expect: crashed "launch was rejected"
// emulated: skip "the emulated shapes stop at 70001 rows, where ceil(70001 / 4) blocks still fit in gridDim.y"
//
// The reference stage 1 with 4 rows of threads per block instead of 8. Every shape up to 262140 rows
// passes. The contract allows 500000 rows (it promises that ceil(rows / 8) blocks fit along y, no
// less), and on a GPU the grader tries 500000 x 3: ceil(500000 / 4) = 125000 blocks along y, a launch
// the GPU rejects.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockX = 32;   // one warp along a row of the input
constexpr int kBlockY = 4;    // the bug: gridDim.y = ceil(rows / 4) passes 65535 from 262141 rows on

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
