// Chapter 7, stage 8: software pipelining with cp.async, register double buffering, 16 x 8 thread tiles.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=8` when stuck.
#include "07_sgemm/epilogue.cuh"
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

#include <cuda_pipeline.h>

#include <algorithm>
#include <type_traits>

namespace WORKBOOK_TRACK {

// TODO: a kernel that overlaps the loading of the next tiles with the arithmetic on the current ones: asynchronous
//       copies into a second shared buffer and a second set of registers, so that memory latency hides behind the
//       multiply-adds.

void sgemm_8_pipelined(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
