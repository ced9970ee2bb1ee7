// Chapter 5, stage 5: padded tile, 32 x 4 threads, eight elements per thread.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/05_transpose/stages.cuh; the lesson is chapters/05_transpose/README.md.
// Grade it with `make check-chapter 5`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=5 STAGE=5` when stuck.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 4;   // 32 x 4 threads: each covers kTile / kBlockRows = 8 rows of the tile

__global__ void transpose_multi_element_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                               std::int64_t cols)
{
    // TODO: the padded tile of stage 4 with kBlockRows = 4: thread (tx, ty) copies the tile rows
    //       ty, ty + 4, ..., ty + 28 (a loop over k = 0, 4, ..., 28 with #pragma unroll, so the
    //       eight loads are all issued before the first one is needed), and the output rows
    //       col0 + ty + k when storing. One __syncthreads() between the two loops.
}

}   // namespace
//@ end
//@ outline
// TODO: stage 4's kernel with fewer threads per tile, each moving several elements of it, so that each thread has more
//       independent loads in flight and the index work is shared.
//@ end

void transpose_5_multi_element(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    //@ guided
    // TODO: blocks of kTile x kBlockRows threads, still one block per 32 x 32 tile.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)in, (void)out, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
