// Chapter 8, stage 7: warp specialisation, persistent blocks, an L2-friendly tile order. (your exercise)
//
// Write the kernel and the launch. The contract (layouts, sizes, alignment, what is checked) is in
// chapters/08_tensor_gemm/stages.cuh; the lesson is chapters/08_tensor_gemm/README.md; the Hopper
// instructions (TMA, mbarrier, wgmma, setmaxnreg) are C++ functions in chapters/common/hopper.cuh.
// Grade it with `make check-chapter 8` on a GPU of compute capability 9.0 (H100, H200): other GPUs and the
// CPU emulator skip this stage, with the reason.
// You may change anything in this file except the launcher's name and parameters. `make hint CH=8 STAGE=7`
// when stuck.
#include "08_tensor_gemm/stages.cuh"
#include "common/hopper.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ outline
// TODO: stage 6 split by role: one warpgroup only copies and the others only multiply, handing buffers to each other
//       through barriers instead of a block-wide barrier; one block per SM walking many output tiles, in an order
//       that keeps shared rows and columns in L2.
//@ end

void hgemm_7_warp_specialized(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype,
                              float beta, float* C, cudaStream_t stream)
{
    //@ guided
    // TODO: 384 threads under __launch_bounds__(384, 1): warpgroup 0 the producer (release_registers, then one thread
    //       issues every copy), warpgroups 1 and 2 the consumers (claim_registers, wgmma, epilogue).
    // TODO: a "full" and an "empty" mbarrier per buffer; both sides keep (buffer, parity) across output tiles.
    // TODO: grid = the number of SMs; block b takes output tiles b, b + gridDim.x, ... in ch08::grouped_tile order.
    // TODO: launch on `stream` for T = __half when dtype == ch08::Dtype::f16, __nv_bfloat16 otherwise, then
    //       WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)dtype, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
