// Chapter 6, stage 6: y = A x, the kernel chosen by K.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/06_gemv/stages.cuh; the lesson is chapters/06_gemv/README.md.
// Grade it with `make check-chapter 6`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=6 STAGE=6` when stuck.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel for short rows: groups of lanes per row, several rows per warp.
// TODO: a kernel for long rows: a block per row.
// TODO: a scalar fallback for rows that vector loads cannot read; the launcher picks the kernel by the row length.

void gemv_6_dispatch(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    (void)A, (void)x, (void)y, (void)M, (void)K, (void)stream;
}

}   // namespace WORKBOOK_TRACK
