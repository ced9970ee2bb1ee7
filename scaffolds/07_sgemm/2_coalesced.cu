// Chapter 7, stage 2: one thread per output element, threadIdx.x along the columns.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=2` when stuck.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kBlockX = 32;   // along the columns of C: contiguous in memory
constexpr int kBlockY = 16;   // along the rows

__global__ void sgemm_coalesced_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    // TODO: stage 1's kernel with the roles swapped: col = blockIdx.x * blockDim.x + threadIdx.x,
    //       row = blockIdx.y * blockDim.y + threadIdx.y. Then a warp reads one A element (a
    //       broadcast) and 32 consecutive floats of B per k, and writes 32 consecutive floats of C.
}

}   // namespace
//@ end
//@ outline
// TODO: stage 1's kernel with consecutive threads along the columns of the output, so that the reads of B and the
//       writes of C are coalesced and the reads of A are shared by a warp.
//@ end

void sgemm_2_coalesced(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream)
{
    //@ guided
    // TODO: blocks of kBlockX x kBlockY threads, a grid of ceil(N / kBlockX) x ceil(M / kBlockY),
    //       launch on `stream`, then WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
