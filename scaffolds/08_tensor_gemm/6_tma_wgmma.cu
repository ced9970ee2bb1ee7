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

//@ outline
// TODO: a kernel in which one thread asks the copy engine (TMA) for whole tiles of A and B, which complete a barrier
//       in shared memory, and warpgroups multiply them with wgmma straight from shared memory, several buffers deep.
//@ end

void hgemm_6_tma_wgmma(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                       float* C, cudaStream_t stream)
{
    //@ guided
    // TODO: two tensor maps (wb::hopper::make_tensor_map_2d: A as M rows of K, boxes of 128 rows; B as N rows of K,
    //       boxes of 256 rows), passed to the kernel by value as const __grid_constant__ CUtensorMap.
    // TODO: 256 threads (2 warpgroups), a 128 x 256 block tile, 4 buffers of 48 KiB in dynamic shared memory aligned
    //       to 1024 bytes, one mbarrier per buffer; thread 0 fills them, everyone waits on the barrier's parity.
    // TODO: per K tile, warpgroup w: wgmma_fence, 4 wgmma_m64n256k16 on its 64 rows, commit, wait; then
    //       __syncthreads and thread 0 refills the buffer. Epilogue with ch08::store_wgmma_64x256.
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
