// Chapter 10, stage 2: a block reduction, then one atomicAdd per block. (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/10_interview_classics/stages.cuh; the lesson is chapters/10_interview_classics/README.md.
// Grade it with `make check-chapter 10`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=10 STAGE=2` when stuck.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;

__global__ void block_atomic_sum_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n)
{
    // TODO: a grid-stride loop (start blockIdx.x * kThreads + threadIdx.x, step gridDim.x * kThreads)
    //       summing into a register; then wb::block_reduce_sum<kThreads>(v, scratch) with
    //       __shared__ float scratch[kThreads / wb::kWarpSize]; thread 0 does atomicAdd(out, v).
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which each block sums its share of the input without atomics, then adds its one
//       result into the output atomically.
//@ end

void sum_2_block_then_atomic(const float* in, float* out, std::int64_t n, cudaStream_t stream)
{
    //@ guided
    // TODO: zero out[0] on the stream (cudaMemsetAsync), then launch min(wb::resident_blocks(kernel,
    //       kThreads), ceil(n / kThreads)) blocks (at least 1) of kThreads; WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: prepare the output, then launch a grid sized to the GPU on `stream`.
    //@ end
    (void)in, (void)out, (void)n, (void)stream;
}

}   // namespace WORKBOOK_TRACK
