// Chapter 5, stage 6: 64 x 64 tiles, float2 global loads and stores, tiles walked down the columns.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/05_transpose/stages.cuh; the lesson is chapters/05_transpose/README.md.
// Grade it with `make check-chapter 5`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=5 STAGE=6` when stuck.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kTile = 64;
constexpr int kThreadsX = kTile / 2;   // 32 threads x one float2 = one 64-float row of the tile
constexpr int kThreadsY = 8;
constexpr int kThreads = kThreadsX * kThreadsY;
constexpr int kMinBlocks = 8;   // ask the compiler for <= 32 registers, so 8 blocks (2048 threads) fit per SM

__global__ void __launch_bounds__(kThreads, kMinBlocks)
    transpose_vectorized_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                std::int64_t cols)
{
    // TODO: __shared__ float tile[kTile][kTile + 1]; the block handles the 64 x 64 tile at
    //       (row0, col0) = (blockIdx.x * 64, blockIdx.y * 64): blockIdx.x runs down the rows, so
    //       blocks running at the same time write neighbouring parts of the same output rows.
    //       Load: when the tile is whole and cols % 2 == 0, thread (tx, ty) loads the float2 at
    //       columns col0 + 2 tx, + 1 of input rows row0 + ty + k (k = 0, 8, ..., 56) and stores its
    //       two floats into tile[ty + k][2 tx], tile[ty + k][2 tx + 1]. Otherwise a scalar loop over
    //       the 4096 elements of the tile (i = thread id; i += kThreads) with bounds tests.
    //       __syncthreads() (the branch is the same for the whole block).
    //       Store: when the tile is whole and rows % 2 == 0, output row col0 + j (j = ty + k) gets
    //       make_float2(tile[2 tx][j], tile[2 tx + 1][j]) at output column row0 + 2 tx. Otherwise a
    //       scalar loop with bounds tests.
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel with larger tiles moved by two-element vector loads and stores, with blocks walking the tiles down the
//       columns so that the writes of neighbouring blocks land close together.
//@ end

void transpose_6_vectorized(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    //@ guided
    // TODO: blocks of kThreadsX x kThreadsY threads, one per 64 x 64 tile: a grid of
    //       ceil(rows / 64) x ceil(cols / 64) (x down the rows, y across the columns).
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)in, (void)out, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
