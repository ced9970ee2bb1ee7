// Chapter 7, stage 5: each thread computes an 8 x 8 tile of outputs (2D register tiling).          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=5` when stuck.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 8;
constexpr int kTM = 8;   // a thread's outputs: kTM rows x kTN columns
constexpr int kTN = 8;
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);   // 256
constexpr int kLoadsA = kBM * kBK / kThreads;         // elements of the A tile per thread per step (4)
constexpr int kLoadsB = kBK * kBN / kThreads;         // and of the B tile (4)

__global__ void __launch_bounds__(kThreads)
    sgemm_2d_tile_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                         float beta, float* __restrict__ C)
{
    // TODO: __shared__ float As[kBM][kBK], Bs[kBK][kBN]. Thread t owns rows (t / 16) * kTM .. + 7 and
    //       columns (t % 16) * kTN .. + 7 of the 128 x 128 block tile: float acc[kTM][kTN] = {}.
    // TODO: each K step: kLoadsA elements of the A tile per thread (element e = t + i * kThreads is
    //       row e / kBK, k e % kBK) and kLoadsB of the B tile (e: row e / kBN, column e % kBN), 0
    //       outside the matrices; __syncthreads().
    // TODO: for k in 0..kBK-1: a_frag[i] = As[row_i][k] (8 values), b_frag[j] = Bs[k][col_j] (8
    //       values), then acc[i][j] += a_frag[i] * b_frag[j] for all 64 pairs. #pragma unroll every
    //       loop over i and j: indices known at compile time keep acc in registers. __syncthreads().
    // TODO: write the 64 results with row < M and col < N tests (beta == 0: C is not read).
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which each thread computes a small square of outputs from a column of A and a row of B held in
//       registers (an outer product per step), so that each shared load feeds several multiply-adds.
//@ end

void sgemm_5_2d_thread_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                              cudaStream_t stream)
{
    //@ guided
    // TODO: kThreads threads per block, a grid of ceil(N / kBN) x ceil(M / kBM), launch on
    //       `stream`, then WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
