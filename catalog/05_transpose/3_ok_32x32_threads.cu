// expect: too-slow "each of your threads moves 8 bytes"
// emulated: passed ""
//
// Chapter 5, stage 3, with one thread per tile element: blocks of 32 x 32 threads instead of the
// reference's 32 x 8, so each thread copies one element in and one element out, with no loop. The
// tile stays unpadded, as the stage asks. The launcher names its launch dimensions `gridDim` and
// `blockDim`, which host code may do: inside a kernel those names are CUDA's built-ins, outside
// they are ordinary variables. Right, so the CPU emulator must pass it; but slow: on an H100 it
// ran at x0.63 of reference stage 2 where x1.00 is needed, and the "too slow" verdict must say why
// (each thread moves 8 bytes where the reference's move 32: four loads in flight per thread, not one).
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;

__global__ void __launch_bounds__(kTile* kTile)
    transpose_tile_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows, std::int64_t cols)
{
    __shared__ float tile[kTile][kTile];
    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
    const int tx = threadIdx.x, ty = threadIdx.y;

    // Thread (tx, ty) reads input element (row0 + ty, col0 + tx): a warp reads one input row.
    if (row0 + ty < rows && col0 + tx < cols) tile[ty][tx] = in[(row0 + ty) * cols + col0 + tx];
    __syncthreads();
    // ... and writes output element (col0 + ty, row0 + tx): a warp writes one output row.
    if (col0 + ty < cols && row0 + tx < rows) out[(col0 + ty) * rows + row0 + tx] = tile[tx][ty];
}

}   // namespace

void transpose_3_shared_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 blockDim(kTile, kTile);
    const dim3 gridDim(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                       static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_tile_kernel<<<gridDim, blockDim, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
