// Chapter 8, stage 4: a cp.async multi-stage pipeline.                              (your exercise)
//
// Write the kernel and the launch. The contract (layouts, sizes, alignment, what is checked) is in
// chapters/08_tensor_gemm/stages.cuh; the lesson is chapters/08_tensor_gemm/README.md.
// Grade it with `make check-chapter 8` (a GPU of compute capability 8.0 or newer, or the CPU emulator).
// You may change anything in this file except the launcher's name and parameters. `make hint CH=8 STAGE=4`
// when stuck.
#include "08_tensor_gemm/stages.cuh"
#include "common/primitives.cuh"
#include "common/tensor_core.cuh"

namespace WORKBOOK_TRACK {

// TODO: stage 3's kernel fed by a pipeline of several shared-memory stages filled by asynchronous copies, so that the
//       loads of later tiles run while the tensor cores work on the current one.

void hgemm_4_cp_async(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                      float* C, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)dtype, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
