// Chapter 5, stage 3: transpose through a 32 x 32 shared-memory tile (unpadded).          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/05_transpose/stages.cuh; the lesson is chapters/05_transpose/README.md.
// Grade it with `make check-chapter 5`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=5 STAGE=3` when stuck.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;

__global__ void transpose_shared_tile_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                             std::int64_t cols)
{
    // TODO: __shared__ float tile[kTile][kTile] (no padding in this stage).
    //       The block handles the tile whose first input row is blockIdx.y * kTile and first input
    //       column blockIdx.x * kTile. Thread (tx, ty) reads input element (row0 + ty, col0 + tx)
    //       into tile[ty][tx] (coalesced), then __syncthreads(), then writes output element
    //       (col0 + ty, row0 + tx) from tile[tx][ty] (coalesced). Test the bounds on both sides:
    //       edge tiles are partly outside the matrix, and every thread must reach the barrier.
}

}  // namespace

void transpose_3_shared_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: blocks of kTile x kTile threads (one per element of the tile), a grid of
    //       ceil(cols / kTile) x ceil(rows / kTile) tiles.
    (void)in, (void)out, (void)rows, (void)cols, (void)stream;
}

}  // namespace WORKBOOK_TRACK
