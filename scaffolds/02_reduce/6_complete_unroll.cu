// Chapter 2, stage 6: complete unrolling, block size as a template parameter.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/02_reduce/stages.cuh; the lesson is chapters/02_reduce/README.md.
// Grade it with `make check-chapter 2`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=2 STAGE=6` when stuck.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_unrolled_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    // TODO: stage 5's kernel with kBlock in place of blockDim.x everywhere (__shared__ float
    //       sdata[kBlock]; i = blockIdx.x * (2 * kBlock) + tid; ...).
    // TODO: the tree as `#pragma unroll` + for (int s = kBlock / 2; s > 32; s /= 2): every bound is
    //       a constant, so the compiler unrolls it completely. Then the last warp with shuffles.
}

}   // namespace
//@ end
//@ outline
// TODO: stage 5's kernel with the block size known at compile time, so that the compiler unrolls every level of the
//       tree and removes the tests that cannot be true for that size.
//@ end

void sum_6_complete_unroll(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    //@ guided
    // TODO: constexpr int kThreads = 256; ch02::reduce_in_passes(..., 2 * kThreads, ...) with a lambda
    //       that launches reduce_unrolled_kernel<kThreads><<<blocks, kThreads, 0, stream>>>.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
