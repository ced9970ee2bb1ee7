// Chapter 7, stage 7: warp tiling, each lane owns four 4 x 4 blocks spread over its warp's tile.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=7` when stuck.
#include "07_sgemm/epilogue.cuh"
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel with a level of tiling between the block and the thread: each warp owns a region of the block's tile
//       and each lane a few small squares spread over it, so that the shared loads of a warp hit distinct banks.

void sgemm_7_warp_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                         cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
