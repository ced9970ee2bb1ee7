// Chapter 2, stage 4: first add during load.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/02_reduce/stages.cuh; the lesson is chapters/02_reduce/README.md.
// Grade it with `make check-chapter 2`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=2 STAGE=4` when stuck.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: stage 3's kernel, with each thread adding two elements of the input while it loads them, so that no thread is
//       idle at the first level and the grid needs half as many blocks.

void sum_4_first_add_during_load(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
