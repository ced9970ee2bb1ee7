// Chapter 10, stage 3: the dot product in one block. (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/10_interview_classics/stages.cuh; the lesson is chapters/10_interview_classics/README.md.
// Grade it with `make check-chapter 10`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=10 STAGE=3` when stuck.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 1024;

__global__ void one_block_dot_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                                     std::int64_t n)
{
    // TODO: for i = threadIdx.x; i < n; i += kThreads: v = fmaf(x[i], y[i], v); then
    //       wb::block_reduce_sum<kThreads>(v, scratch); thread 0 stores out[0] = v (the only block:
    //       no atomic needed).
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel run by a single block that computes the dot product of the two vectors and writes it
//       to the output.
//@ end

void dot_3_one_block(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream)
{
    //@ guided
    // TODO: one block of kThreads on `stream`, WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel with one block on `stream`.
    //@ end
    (void)x, (void)y, (void)out, (void)n, (void)stream;
}

}   // namespace WORKBOOK_TRACK
