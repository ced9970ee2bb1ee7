// Chapter 3, stage 4: one warp per row, the row in registers, vector loads.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/03_softmax/stages.cuh; the lesson is chapters/03_softmax/README.md.
// Grade it with `make check-chapter 3`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=3 STAGE=4` when stuck.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

#include <stdexcept>

namespace WORKBOOK_TRACK {

// TODO: stage 3's kernel with the row read once, by vector loads, into an array of registers whose length the launcher
//       picks at compile time, so that the maximum, the sum and the outputs all come from registers.

void softmax_4_warp_registers(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
