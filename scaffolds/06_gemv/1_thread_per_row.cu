// Chapter 6, stage 1: y = A x, one thread per row.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/06_gemv/stages.cuh; the lesson is chapters/06_gemv/README.md.
// Grade it with `make check-chapter 6`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=6 STAGE=1` when stuck.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;

__global__ void gemv_thread_per_row_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                           float* __restrict__ y, std::int64_t M, std::int64_t K)
{
    // TODO: row = global thread index (std::int64_t); if row < M, sum A[row * K + k] * x[k] for
    //       k = 0 .. K - 1 in a float and write it to y[row].
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which each thread computes the dot product of one row of the matrix with the vector.
//@ end

void gemv_1_thread_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                           cudaStream_t stream)
{
    //@ guided
    // TODO: ceil(M / kThreads) blocks of kThreads threads on `stream`, then WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)A, (void)x, (void)y, (void)M, (void)K, (void)stream;
}

}   // namespace WORKBOOK_TRACK
