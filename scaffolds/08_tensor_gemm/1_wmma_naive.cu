// Chapter 8, stage 1: WMMA, one warp per 16 x 16 tile of C, fragments from global memory. (your exercise)
//
// Write the kernel and the launch. The contract (layouts, sizes, alignment, what is checked) is in
// chapters/08_tensor_gemm/stages.cuh; the lesson is chapters/08_tensor_gemm/README.md.
// Grade it with `make check-chapter 8` (a GPU of compute capability 8.0 or newer, or the CPU emulator).
// You may change anything in this file except the launcher's name and parameters. `make hint CH=8 STAGE=1`
// when stuck.
#include "08_tensor_gemm/stages.cuh"
#include "common/primitives.cuh"
#include <mma.h>

namespace WORKBOOK_TRACK {

//@ outline
// TODO: a kernel in which each warp computes one tile of the output with the warp-level matrix instructions, loading
//       its fragments straight from global memory, with the edges of the matrices handled through a small staging tile.
//@ end

void hgemm_1_wmma_naive(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                        float* C, cudaStream_t stream)
{
    //@ guided
    // TODO: a kernel template on T (__half or __nv_bfloat16), 4 warps per block side by side along N: warp w
    //       of block (bx, by) owns the 16 x 16 tile of C at rows by * 16, columns (bx * 4 + w) * 16.
    // TODO: nvcuda::wmma fragments: matrix_a row_major, matrix_b col_major (B is stored N x K), an fp32
    //       accumulator set to 0; for k0 = 0, 16, ...: load_matrix_sync from global memory when the whole
    //       16 x 16 piece is inside (leading dimension K), otherwise through a per-warp shared tile with zeros
    //       outside the matrix; mma_sync.
    // TODO: the epilogue: store_matrix_sync into a per-warp shared float tile, then each lane writes
    //       C = alpha * acc + beta * C for its elements with row < M and col < N (C is not read when beta == 0).
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
