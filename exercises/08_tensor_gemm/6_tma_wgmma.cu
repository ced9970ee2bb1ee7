// Chapter 8, stage 6: Hopper's TMA and wgmma: the copy engine fills shared memory, warpgroups multiply. (your exercise)
//
// Write the kernel and the launch. The contract (layouts, sizes, alignment, what is checked) is in
// chapters/08_tensor_gemm/stages.cuh; the lesson is chapters/08_tensor_gemm/README.md; the Hopper
// instructions (TMA, mbarrier, wgmma) are C++ functions in chapters/common/hopper.cuh.
// Grade it with `make check-chapter 8` on a GPU of compute capability 9.0 (H100, H200): other GPUs and the
// CPU emulator skip this stage, with the reason.
// You may change anything in this file except the launcher's name and parameters. `make hint CH=8 STAGE=6`
// when stuck.
#include "08_tensor_gemm/stages.cuh"
#include "common/hopper.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel in which one thread asks the copy engine (TMA) for whole tiles of A and B, which complete a barrier
//       in shared memory, and warpgroups multiply them with wgmma straight from shared memory, several buffers deep.

void hgemm_6_tma_wgmma(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                       float* C, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)dtype, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
