// Chapter 5, stage 6: 64 x 64 tiles, float4 global loads and stores.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/05_transpose/stages.cuh; the lesson is chapters/05_transpose/README.md.
// Grade it with `make check-chapter 5`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=5 STAGE=6` when stuck.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 64;
constexpr int kThreadsX = kTile / 4;   // 16 threads x one float4 = one 64-float row of the tile
constexpr int kThreadsY = 16;
constexpr int kThreads = kThreadsX * kThreadsY;

__global__ void __launch_bounds__(kThreads) transpose_vectorized_kernel(const float* __restrict__ in,
                                                                         float* __restrict__ out, std::int64_t rows,
                                                                         std::int64_t cols)
{
    // TODO: __shared__ float tile[kTile][kTile + 1]; the block handles the 64 x 64 tile at
    //       (blockIdx.y * 64, blockIdx.x * 64).
    //       Load: when the tile is whole and cols % 4 == 0, thread (tx, ty) loads the float4 at
    //       columns 4 tx .. 4 tx + 3 of tile rows ty, ty + 16, ty + 32, ty + 48 and stores its four
    //       floats into the tile one by one. Otherwise a scalar loop with bounds tests.
    //       __syncthreads().
    //       Store: when the tile is whole and rows % 4 == 0, output row col0 + j (j = ty + 16 k)
    //       gets the float4 made of tile[4 tx + 0 .. 3][j] at output column row0 + 4 tx. Otherwise
    //       a scalar loop with bounds tests.
}

}  // namespace

void transpose_6_vectorized(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: blocks of kThreadsX x kThreadsY threads, one per 64 x 64 tile.
    (void)in, (void)out, (void)rows, (void)cols, (void)stream;
}

}  // namespace WORKBOOK_TRACK
