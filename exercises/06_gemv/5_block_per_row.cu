// Chapter 6, stage 5: y = A x, one block per row.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/06_gemv/stages.cuh; the lesson is chapters/06_gemv/README.md.
// Grade it with `make check-chapter 6`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=6 STAGE=5` when stuck.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel in which a whole block owns a row, so that a very long row is read by many warps at once, their
//       partial sums combined through shared memory.

void gemv_5_block_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)A, (void)x, (void)y, (void)M, (void)K, (void)stream;
}

}   // namespace WORKBOOK_TRACK
