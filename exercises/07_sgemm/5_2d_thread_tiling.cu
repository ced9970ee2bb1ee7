// Chapter 7, stage 5: each thread computes an 8 x 8 tile of outputs (2D register tiling).          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=5` when stuck.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel in which each thread computes a small square of outputs from a column of A and a row of B held in
//       registers (an outer product per step), so that each shared load feeds several multiply-adds.

void sgemm_5_2d_thread_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                              cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
