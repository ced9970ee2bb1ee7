// Chapter 8, stage 5: XOR-swizzled shared memory, big warp tiles, fragments loaded ahead. (your exercise)
//
// Write the kernel and the launch. The contract (layouts, sizes, alignment, what is checked) is in
// chapters/08_tensor_gemm/stages.cuh; the lesson is chapters/08_tensor_gemm/README.md.
// Grade it with `make check-chapter 8` (a GPU of compute capability 8.0 or newer, or the CPU emulator).
// You may change anything in this file except the launcher's name and parameters. `make hint CH=8 STAGE=5`
// when stuck.
#include "08_tensor_gemm/stages.cuh"
#include "common/primitives.cuh"
#include "common/tensor_core.cuh"

namespace WORKBOOK_TRACK {

//@ outline
// TODO: stage 4's kernel with the shared-memory tiles stored in an XOR-swizzled layout, so that the matrix loads read
//       every bank once without padding; with the memory saved, larger warp tiles and the next step's fragments
//       loaded while this step's mma run.
//@ end

void hgemm_5_swizzle(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                     float* C, cudaStream_t stream)
{
    //@ guided
    // TODO: stage 4's pipeline with unpadded shared rows of 64 elements, chunk c of row r stored at chunk c ^ (r % 8),
    //       through one offset(r, k) function used by both the cp.async destination and the ldmatrix addresses.
    // TODO: 4 warps of 64 x 64 in a 128 x 128 block tile; two sets of fragments, the next K step's loaded while
    //       this step's mma run.
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
