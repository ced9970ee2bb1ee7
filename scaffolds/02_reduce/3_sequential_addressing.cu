// Chapter 2, stage 3: sequential addressing, the tree run backwards.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/02_reduce/stages.cuh; the lesson is chapters/02_reduce/README.md.
// Grade it with `make check-chapter 2`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=2 STAGE=3` when stuck.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;

__global__ void reduce_sequential_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    // TODO: load one element per thread into shared memory (0 past the end), __syncthreads().
    // TODO: for s = blockDim.x / 2 down to 1 (halving): threads tid < s add sdata[tid + s] into
    //       sdata[tid]; __syncthreads() after each step.
    // TODO: thread 0 writes sdata[0] to partial[blockIdx.x].
}

}   // namespace
//@ end
//@ outline
// TODO: the tree run backwards: at each level the first half of the active threads adds the matching element of the
//       second half, so that neighbouring threads read neighbouring words and shared memory serves them without bank
//       conflicts.
//@ end

void sum_3_sequential_addressing(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    //@ guided
    // TODO: as stage 1: ch02::reduce_in_passes with a lambda that launches reduce_sequential_kernel.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
