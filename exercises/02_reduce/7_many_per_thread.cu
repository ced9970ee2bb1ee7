// Chapter 2, stage 7: many elements per thread, a grid sized to the GPU.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/02_reduce/stages.cuh; the lesson is chapters/02_reduce/README.md.
// Grade it with `make check-chapter 2`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=2 STAGE=7` when stuck.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

// TODO: a kernel in which each thread first sums many elements, striding over the whole input, before the block
//       reduces, with a grid only as large as the GPU can keep resident, so that the second pass is tiny.

void sum_7_many_per_thread(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
