// Chapter 7, stage 4: each thread computes 8 outputs down one column (1D register tiling).          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=4` when stuck.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kBM = 64;   // block tile: kBM rows x kBN columns of C
constexpr int kBN = 64;
constexpr int kBK = 8;                      // K step
constexpr int kTM = 8;                      // outputs per thread, down a column
constexpr int kThreads = kBM * kBN / kTM;   // 512
static_assert(kBM * kBK == kThreads && kBK * kBN == kThreads, "one element of each tile per thread");

__global__ void __launch_bounds__(kThreads)
    sgemm_1d_tile_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                         float beta, float* __restrict__ C)
{
    // TODO: __shared__ float As[kBM][kBK], Bs[kBK][kBN]. The block's tile starts at row
    //       m0 = blockIdx.y * kBM, column n0 = blockIdx.x * kBN. Thread t = threadIdx.x owns column
    //       t % kBN and rows (t / kBN) * kTM .. + kTM - 1 of the tile: float acc[kTM] = {}.
    // TODO: for each K step k0: thread t loads As[t / kBK][t % kBK] = A[m0 + t / kBK][k0 + t % kBK]
    //       and Bs[t / kBN][t % kBN] = B[k0 + t / kBN][n0 + t % kBN] (0 outside the matrices),
    //       __syncthreads(); for k in 0..kBK-1: b = Bs[k][column] once, then
    //       acc[i] += As[row_i][k] * b for the kTM rows; __syncthreads().
    // TODO: write the kTM results (row < M and column < N; beta == 0: C is not read).
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which each thread computes a short column of outputs, reusing each value of B it reads from shared
//       memory for all of them, held in registers.
//@ end

void sgemm_4_1d_thread_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
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
