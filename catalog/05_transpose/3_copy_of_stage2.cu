// Catalog, chapter 5, stage 3: stage 2 handed in again (no shared-memory tile).
// expect: wrong "not this stage's idea"
//
// Stage 3's target is x1.0 over stage 2: on a GPU where __ldg reads of stage 2 are as fast as the tile,
// a copy of stage 2 would pass on speed. The grader checks that a block keeps a tile in shared memory.
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

void transpose_3_shared_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kBlockX)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kBlockY)));
    transpose_coalesced_writes_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
