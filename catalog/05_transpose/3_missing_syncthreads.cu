// Catalog, chapter 5, stage 3: the shared-memory tile without the barrier between its store and load.
// expect: wrong "wrong result"
// emulated: crashed "shared memory race"
//
// Each thread stores one element of the tile and then reads another thread's element (the transposed
// one), written by a different warp. Without __syncthreads() in between, a warp that has no element to
// load (past the matrix edge) or whose load returned early reads the tile before the other warps have
// filled it, and writes stale shared memory to the output. A race cannot be diagnosed from the output
// alone, so only the verdict is fixed: a wrong result. The many shapes make it certain to show.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;

__global__ void transpose_racy_tile_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                           std::int64_t cols)
{
    __shared__ float tile[kTile][kTile];
    const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
    const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    if (row0 + ty < rows && col0 + tx < cols) tile[ty][tx] = in[(row0 + ty) * cols + col0 + tx];
    // the bug: no __syncthreads() here
    if (col0 + ty < cols && row0 + tx < rows) out[(col0 + ty) * rows + row0 + tx] = tile[tx][ty];
}

}   // namespace

void transpose_3_shared_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kTile, kTile);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kTile)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kTile)));
    transpose_racy_tile_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
