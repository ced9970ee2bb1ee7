// Chapter 7, stage 3: 32 x 32 tiles of A and B staged in shared memory.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=3` when stuck.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kTile = 32;   // the block computes a kTile x kTile tile of C and walks K in steps of kTile

__global__ void __launch_bounds__(kTile* kTile)
    sgemm_shared_tiles_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                              const float* __restrict__ B, float beta, float* __restrict__ C)
{
    // TODO: __shared__ float As[kTile][kTile], Bs[kTile][kTile]; tx = threadIdx.x (a column),
    //       ty = threadIdx.y (a row); row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx.
    // TODO: for k0 = 0, kTile, ... < K: As[ty][tx] = A[row][k0 + tx] and Bs[ty][tx] = B[k0 + ty][col],
    //       each 0 when outside the matrix; __syncthreads(); acc += As[ty][k] * Bs[k][tx] for k in
    //       0..kTile-1; __syncthreads() before the next tiles overwrite these.
    // TODO: if row < M and col < N: C[row][col] = alpha * acc + beta * C[row][col] (beta == 0: C
    //       is not read).
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which a block computes a square tile of the output, stepping along the shared dimension with tiles
//       of A and B loaded into shared memory, so that each loaded value is used by a whole row or column of threads.
//@ end

void sgemm_3_shared_memory_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                                  float* C, cudaStream_t stream)
{
    //@ guided
    // TODO: blocks of kTile x kTile threads, a grid of ceil(N / kTile) x ceil(M / kTile), launch on
    //       `stream`, then WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
