// Chapter 3, stage 6: a softmax that picks its kernel by row length; fp32, fp16, log-softmax.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/03_softmax/stages.cuh; the lesson is chapters/03_softmax/README.md.
// Grade it with `make check-chapter 3`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=3 STAGE=6` when stuck.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"
#include "common/smem_row.hpp"

namespace WORKBOOK_TRACK {

// TODO: a kernel that holds short rows in registers, a group of lanes (or a whole warp) per row, several rows per group
//       when rows are very short.
// TODO: a kernel for medium rows: a block per row, the row cached in shared memory so that global memory is read only
//       once.
// TODO: a kernel for rows too long for shared memory: the online softmax of stage 5, one block per row; the launchers
//       pick one of the three by row length and element type.

void softmax_6_dispatch(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

void softmax_6_dispatch_half(const __half* x, __half* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

void log_softmax_6_dispatch(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
