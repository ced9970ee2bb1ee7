// Chapter 6, stage 2: y = A x, one warp per row, shuffle reduction.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/06_gemv/stages.cuh; the lesson is chapters/06_gemv/README.md.
// Grade it with `make check-chapter 6`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=6 STAGE=2` when stuck.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;   // one row per warp

__global__ void gemv_warp_per_row_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                         float* __restrict__ y, std::int64_t M, std::int64_t K)
{
    // TODO: row = blockIdx.x * kRowsPerBlock + warp index in the block; lane = threadIdx.x % 32.
    //       A warp whose row is past M returns (all its lanes together). Lane l sums the products
    //       for k = l, l + 32, ...; wb::warp_reduce_sum combines the 32 partial sums; lane 0 writes y[row].
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which a warp owns a row: its lanes read consecutive elements, so that the reads are coalesced, and
//       a shuffle reduction combines their partial sums.
//@ end

void gemv_2_warp_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    //@ guided
    // TODO: ceil(M / kRowsPerBlock) blocks of kThreads threads.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)A, (void)x, (void)y, (void)M, (void)K, (void)stream;
}

}   // namespace WORKBOOK_TRACK
