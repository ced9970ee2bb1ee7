// Chapter 3, stage 1: softmax in three kernels: row max, exp and sum, normalise.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/03_softmax/stages.cuh; the lesson is chapters/03_softmax/README.md.
// Grade it with `make check-chapter 3`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=3 STAGE=1` when stuck.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel that finds the largest value of each row.
// TODO: a kernel that sums the exponentials of each row, shifted by its largest value so that nothing overflows.
// TODO: a kernel that writes each output: the shifted exponential divided by its row's sum.

void softmax_1_three_kernels(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: launch your kernels in order on `stream` with the grids, blocks and shared memory you choose, then
    //       check each launch with WB_CHECK_LAUNCH.
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
