// Chapter 10, stage 4: the dot product with a grid, one atomicAdd per block. (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/10_interview_classics/stages.cuh; the lesson is chapters/10_interview_classics/README.md.
// Grade it with `make check-chapter 10`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=10 STAGE=4` when stuck.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;

__global__ void grid_dot_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                                std::int64_t n)
{
    // TODO: a grid-stride loop (start blockIdx.x * kThreads + threadIdx.x, step gridDim.x * kThreads)
    //       with v = fmaf(x[i], y[i], v); wb::block_reduce_sum<kThreads>; thread 0 does atomicAdd(out, v).
}

}   // namespace
//@ end
//@ outline
// TODO: stage 3's kernel spread over a whole grid: every element read once, one atomic per block.
//@ end

void dot_4_grid_atomic(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream)
{
    //@ guided
    // TODO: zero out[0] on the stream, then min(wb::resident_blocks(kernel, kThreads), ceil(n / kThreads))
    //       blocks (at least 1); WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: prepare the output, then launch a grid sized to the GPU on `stream`.
    //@ end
    (void)x, (void)y, (void)out, (void)n, (void)stream;
}

}   // namespace WORKBOOK_TRACK
