// Chapter 5, stage 1: transpose, one thread per element, coalesced reads, strided writes.          (reference solution)
//
// The baseline. A warp reads 32 consecutive floats of an input row (one 128-byte line), then
// writes them 4 bytes each into 32 different output rows: every store instruction touches 32
// separate lines. That scattered store side is what the later stages remove.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockX = 32;   // one warp along a row of the input
constexpr int kBlockY = 8;

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
