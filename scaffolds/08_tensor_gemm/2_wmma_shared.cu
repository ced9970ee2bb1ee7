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

//@ outline
// TODO: stage 1's kernel with the block's tiles of A and B first staged in shared memory, so that the warps of a block
//       share each loaded tile.
//@ end

void hgemm_2_wmma_shared(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                         float* C, cudaStream_t stream)
{
    //@ guided
    // TODO: 4 warps per block, a 64 x 64 tile of C, 32 x 32 per warp (2 x 2 WMMA fragments).
    // TODO: per K step of 32: copy the 64 x 32 tiles of A and B (16-byte chunks, zeros outside the matrices)
    //       into __align__(32) shared arrays with rows padded to 40 elements; __syncthreads(); two K steps
    //       of 16: load 2 A and 2 B fragments, 4 mma_sync; __syncthreads().
    // TODO: the epilogue through a shared 64 x 64 float tile (rows of 68), as in stage 1.
    // TODO: launch on `stream` for T = __half when dtype == ch08::Dtype::f16, __nv_bfloat16 otherwise
    //       (A and B point to T), then WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)dtype, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
