// Chapter 7, stage 3: 32 x 32 tiles of A and B staged in shared memory.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=3` when stuck.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel in which a block computes a square tile of the output, stepping along the shared dimension with tiles
//       of A and B loaded into shared memory, so that each loaded value is used by a whole row or column of threads.

void sgemm_3_shared_memory_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                                  float* C, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
