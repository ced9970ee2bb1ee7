// Chapter 1, stage 1: c = a + b, one thread per element.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/01_elementwise/stages.cuh; the lesson is chapters/01_elementwise/README.md.
// Grade it with `make check-chapter 1`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=1 STAGE=1` when stuck.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

__global__ void add_naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 std::int64_t n)
{
    // TODO: compute this thread's global index (as std::int64_t), and if it is inside the array,
    //       write c[i] = a[i] + b[i].
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which each thread adds one pair of elements and writes the result, with a guard for the threads
//       past the end of the arrays.
//@ end

void add_1_naive(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    //@ guided
    // TODO: pick a block size, compute how many blocks cover n elements (wb::ceil_div), launch
    //       add_naive_kernel on `stream`, then WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)a, (void)b, (void)c, (void)n, (void)stream;
}

}   // namespace WORKBOOK_TRACK
