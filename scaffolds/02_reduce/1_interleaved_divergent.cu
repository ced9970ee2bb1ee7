// Chapter 2, stage 1: tree reduction in shared memory, interleaved addressing.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/02_reduce/stages.cuh; the lesson is chapters/02_reduce/README.md.
// Grade it with `make check-chapter 2`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=2 STAGE=1` when stuck.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;   // a power of two: the tree halves it at every step

__global__ void reduce_interleaved_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    // TODO: __shared__ float sdata[kThreads]; each thread stores in[i] (i = blockIdx.x * blockDim.x +
    //       threadIdx.x, as std::int64_t) or 0 when i >= n, then __syncthreads().
    // TODO: for s = 1, 2, 4, ... < blockDim.x: threads with tid % (2 * s) == 0 add sdata[tid + s] into
    //       sdata[tid]; a __syncthreads() after each step, outside the if.
    // TODO: thread 0 writes sdata[0] to partial[blockIdx.x].
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which each block loads its part of the input into shared memory and sums it as a tree, pairing
//       neighbours first and doubling the distance at each level, with the threads whose index is a multiple of the
//       distance doing the adds; its first thread writes the block's partial sum.
//@ end

void sum_1_interleaved_divergent(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    //@ guided
    // TODO: ch02::reduce_in_passes(in, out, n, workspace, kThreads, pass) with a lambda
    //       pass(const float* src, float* dst, std::int64_t count, unsigned blocks) that launches
    //       reduce_interleaved_kernel<<<blocks, kThreads, 0, stream>>>(src, dst, count) and then
    //       calls WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
