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

//@ outline
// TODO: a kernel that issues the tensor-core instruction itself, with its fragments loaded from shared memory by the
//       matrix-load instruction, tiled by block and by warp.
//@ end

void hgemm_3_mma_ldmatrix(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                          float* C, cudaStream_t stream)
{
    //@ guided
    // TODO: 8 warps, a 128 x 128 block tile (2 x 4 warps of 64 x 32), K step 32, shared rows of 40 elements.
    // TODO: per 16 of K: 4 wb::ldmatrix_x4 for A (lane l: row l % 16, column (l / 16) * 8), 2 wb::ldmatrix_x4
    //       for B (each gives the fragments of two 16 x 8 tiles), 16 wb::mma_m16n8k16<T> into float acc[4][4][4].
    // TODO: the epilogue from registers: lane (g = lane / 4, t = lane % 4) holds rows g, g + 8 and
    //       columns 2t, 2t + 1 of each 16 x 8 tile.
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
