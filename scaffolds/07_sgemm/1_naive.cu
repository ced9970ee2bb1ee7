// Chapter 7, stage 1: one thread per output element, threadIdx.x down the rows.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=1` when stuck.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kBlockX = 32;   // along the rows of C (the slow direction in memory: the mistake)
constexpr int kBlockY = 16;   // along the columns

__global__ void sgemm_naive_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                   const float* __restrict__ B, float beta, float* __restrict__ C)
{
    // TODO: row = blockIdx.x * blockDim.x + threadIdx.x, col = blockIdx.y * blockDim.y + threadIdx.y;
    //       return when row >= M or col >= N.
    // TODO: acc = sum over k of A[row * K + k] * B[k * N + col] (fmaf; 64-bit offsets: row * K can
    //       pass 2^31), then C[row * N + col] = alpha * acc + beta * C[row * N + col], except that
    //       when beta == 0 C is not read at all (it may hold NaN): write alpha * acc.
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which each thread computes one element of the output as a dot product of a row of A and a column of
//       B, with consecutive threads walking down the rows.
//@ end

void sgemm_1_naive(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                   cudaStream_t stream)
{
    //@ guided
    // TODO: blocks of kBlockX x kBlockY threads, a grid of ceil(M / kBlockX) x ceil(N / kBlockY)
    //       blocks (wb::ceil_div), launch on `stream`, then WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
