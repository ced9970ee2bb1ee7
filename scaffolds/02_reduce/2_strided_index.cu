// Chapter 2, stage 2: the same tree, work given to the first threads.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/02_reduce/stages.cuh; the lesson is chapters/02_reduce/README.md.
// Grade it with `make check-chapter 2`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=2 STAGE=2` when stuck.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;

__global__ void reduce_strided_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    // TODO: load one element per thread into shared memory as in stage 1 (0 past the end), __syncthreads().
    // TODO: for s = 1, 2, 4, ... < blockDim.x: index = 2 * s * tid; if index < blockDim.x, add
    //       sdata[index + s] into sdata[index]; __syncthreads() after each step. (The lanes of a warp
    //       then touch words 2s apart: bank conflicts from s = 1 on, which stage 3 removes.)
    // TODO: thread 0 writes sdata[0] to partial[blockIdx.x].
}

}   // namespace
//@ end
//@ outline
// TODO: the same tree as stage 1, but at each level the work goes to the first threads of the block (each computes
//       which pair it owns), so whole warps stay busy or idle together instead of diverging.
//@ end

void sum_2_strided_index(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    //@ guided
    // TODO: as stage 1: ch02::reduce_in_passes with a lambda that launches reduce_strided_kernel.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
