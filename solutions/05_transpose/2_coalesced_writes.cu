// Chapter 5, stage 2: transpose, one thread per element, coalesced writes, strided __ldg reads.          (reference solution)
//
// Why it is faster than stage 1: the uncoalesced side moved from the stores to the loads. A
// strided load brings a 32-byte sector into L1 through the read-only path (__ldg), and the other
// threads of the block, which read the neighbouring columns, find the rest of that sector there.
// A strided store cannot be helped that way: each one leaves a partly written line in L2 that has
// to be merged with the others before it can go to memory.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockX = 32;   // one warp along a row of the OUTPUT
constexpr int kBlockY = 8;

__global__ void transpose_coalesced_writes_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                  std::int64_t rows, std::int64_t cols)
{
    const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * kBlockX + threadIdx.x;   // input row = output column
    const std::int64_t c = static_cast<std::int64_t>(blockIdx.y) * kBlockY + threadIdx.y;   // input column = output row
    if (r < rows && c < cols) out[c * rows + r] = __ldg(&in[r * cols + c]);   // read strided, write coalesced
}

}   // namespace

void transpose_2_coalesced_writes(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                                  cudaStream_t stream)
{
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kBlockX)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kBlockY)));
    transpose_coalesced_writes_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
