// expect: too-slow "each of your threads moves 8 bytes"
// emulated: skip "right; its 32 x 32 one-element geometry already passes in emulation as 3_ok_32x32_threads, at 4x the reference fibers (2 minutes of CI); only the GPU speed verdict is new"
//
// Chapter 5, stage 4, written the way most textbooks draw it: the padded [32][33] tile, and one
// thread per tile element, blocks of 32 x 32 = 1024 threads with no loop. The padding is right, so
// there are no bank conflicts and the results are right. But reference stage 3 already
// moves four elements per thread (32 x 8 threads per tile), so on an H100 this kernel is hardly
// faster than stage 3 while the rule asks for the gain of the padding: "too slow", and the first
// sentence of the verdict must say why: each thread moves 8 bytes (one float in, one out) where a
// thread of the reference moves 32.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;

__global__ void __launch_bounds__(kTile* kTile)
    transpose_one_per_thread_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                    std::int64_t cols)
{
    __shared__ float tile[kTile][kTile + 1];   // padded: a column of the tile spans 32 banks
    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
    const int tx = threadIdx.x, ty = threadIdx.y;

    if (row0 + ty < rows && col0 + tx < cols) tile[ty][tx] = in[(row0 + ty) * cols + col0 + tx];
    __syncthreads();
    if (col0 + ty < cols && row0 + tx < rows) out[(col0 + ty) * rows + row0 + tx] = tile[tx][ty];
}

}   // namespace

void transpose_4_padded_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kTile, kTile);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_one_per_thread_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
