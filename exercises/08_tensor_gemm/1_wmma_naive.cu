// Chapter 8, stage 1: WMMA, one warp per 16 x 16 tile of C, fragments from global memory. (your exercise)
//
// Write the kernel and the launch. The contract (layouts, sizes, alignment, what is checked) is in
// chapters/08_tensor_gemm/stages.cuh; the lesson is chapters/08_tensor_gemm/README.md.
// Grade it with `make check-chapter 8` (a GPU of compute capability 8.0 or newer, or the CPU emulator).
// You may change anything in this file except the launcher's name and parameters. `make hint CH=8 STAGE=1`
// when stuck.
#include "08_tensor_gemm/stages.cuh"
#include "common/primitives.cuh"
#include <mma.h>

namespace WORKBOOK_TRACK {

// TODO: a kernel in which each warp computes one tile of the output with the warp-level matrix instructions, loading
//       its fragments straight from global memory, with the edges of the matrices handled through a small staging tile.

void hgemm_1_wmma_naive(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                        float* C, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)dtype, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
