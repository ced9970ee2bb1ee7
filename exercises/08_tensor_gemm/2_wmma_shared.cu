// Chapter 8, stage 2: WMMA with shared-memory block tiles.                          (your exercise)
//
// Write the kernel and the launch. The contract (layouts, sizes, alignment, what is checked) is in
// chapters/08_tensor_gemm/stages.cuh; the lesson is chapters/08_tensor_gemm/README.md.
// Grade it with `make check-chapter 8` (a GPU of compute capability 8.0 or newer, or the CPU emulator).
// You may change anything in this file except the launcher's name and parameters. `make hint CH=8 STAGE=2`
// when stuck.
#include "08_tensor_gemm/stages.cuh"
#include "common/primitives.cuh"
#include <mma.h>

namespace WORKBOOK_TRACK {

// TODO: stage 1's kernel with the block's tiles of A and B first staged in shared memory, so that the warps of a block
//       share each loaded tile.

void hgemm_2_wmma_shared(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                         float* C, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)dtype, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
