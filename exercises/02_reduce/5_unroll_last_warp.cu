// Chapter 2, stage 5: unroll the last warp, with shuffles.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/02_reduce/stages.cuh; the lesson is chapters/02_reduce/README.md.
// Grade it with `make check-chapter 2`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=2 STAGE=5` when stuck.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: stage 4's kernel, but once only one warp is left the tree finishes inside that warp with register exchanges
//       between lanes, with no barrier and no shared memory.

void sum_5_unroll_last_warp(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
