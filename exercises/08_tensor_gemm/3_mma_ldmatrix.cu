// Chapter 8, stage 3: mma.sync m16n8k16 fed by ldmatrix, block and warp tiling.     (your exercise)
//
// Write the kernel and the launch. The contract (layouts, sizes, alignment, what is checked) is in
// chapters/08_tensor_gemm/stages.cuh; the lesson is chapters/08_tensor_gemm/README.md.
// Grade it with `make check-chapter 8` (a GPU of compute capability 8.0 or newer, or the CPU emulator).
// You may change anything in this file except the launcher's name and parameters. `make hint CH=8 STAGE=3`
// when stuck.
#include "08_tensor_gemm/stages.cuh"
#include "common/primitives.cuh"
#include "common/tensor_core.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel that issues the tensor-core instruction itself, with its fragments loaded from shared memory by the
//       matrix-load instruction, tiled by block and by warp.

void hgemm_3_mma_ldmatrix(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                          float* C, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)dtype, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
