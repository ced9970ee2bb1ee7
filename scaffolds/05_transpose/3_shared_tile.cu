// Chapter 5, stage 3: transpose through a 32 x 32 shared-memory tile (unpadded).          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/05_transpose/stages.cuh; the lesson is chapters/05_transpose/README.md.
// Grade it with `make check-chapter 5`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=5 STAGE=3` when stuck.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;   // 32 x 8 threads: each thread copies kTile / kBlockRows = 4 elements

__global__ void transpose_shared_tile_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                             std::int64_t cols)
{
    // TODO: __shared__ float tile[kTile][kTile] (no padding in this stage).
    //       The block handles the tile whose first input row is row0 = blockIdx.y * kTile and first
    //       input column col0 = blockIdx.x * kTile. For k = 0, 8, 16, 24: thread (tx, ty) reads
    //       input element (row0 + ty + k, col0 + tx) into tile[ty + k][tx] (coalesced). Then
    //       __syncthreads(). Then for the same k it writes output element (col0 + ty + k, row0 + tx),
    //       that is out[(col0 + ty + k) * rows + row0 + tx], from tile[tx][ty + k] (coalesced).
    //       Test the bounds on both sides: edge tiles stick out of the matrix, and every thread
    //       must still reach the barrier (no early return).
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which a block reads a square tile with coalesced loads into shared memory, waits for the whole
//       tile, and writes it back transposed, again coalesced, by reading the tile along its columns.
//@ end

void transpose_3_shared_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    //@ guided
    // TODO: blocks of kTile x kBlockRows threads, a grid of ceil(cols / kTile) x ceil(rows / kTile) tiles.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)in, (void)out, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
