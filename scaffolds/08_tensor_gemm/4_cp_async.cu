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

//@ outline
// TODO: stage 3's kernel fed by a pipeline of several shared-memory stages filled by asynchronous copies, so that the
//       loads of later tiles run while the tensor cores work on the current one.
//@ end

void hgemm_4_cp_async(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                      float* C, cudaStream_t stream)
{
    //@ guided
    // TODO: stage 3's tiles in 3 buffers of dynamic shared memory (raise the limit with cudaFuncSetAttribute).
    // TODO: copies with ch08::cp_async16 (zero-filling outside the matrices) and ch08::cp_async_commit();
    //       issue tiles 0 and 1, then for each tile t: ch08::cp_async_wait<1>(), __syncthreads(), issue tile
    //       t + 2 (commit an empty group past the end), compute tile t. cp_async_wait<0>() before the end.
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
