// Chapter 2, stage 5: unroll the last warp, with shuffles.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/02_reduce/stages.cuh; the lesson is chapters/02_reduce/README.md.
// Grade it with `make check-chapter 2`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=2 STAGE=5` when stuck.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;
constexpr int kPerBlock = 2 * kThreads;
constexpr unsigned kFullMask = 0xffffffffu;   // all 32 lanes take part in each shuffle

__global__ void reduce_last_warp_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    // TODO: load and first add as in stage 4.
    // TODO: the shared-memory tree only while s > 32 (with __syncthreads() after each step).
    // TODO: if (tid < 32): v = sdata[tid] + sdata[tid + 32]; then for offset = 16, 8, 4, 2, 1:
    //       v += __shfl_down_sync(kFullMask, v, offset). Lane 0 writes partial[blockIdx.x].
    //       No `volatile` lock-step tricks: they are a race since Volta (see the README).
}

}   // namespace
//@ end
//@ outline
// TODO: stage 4's kernel, but once only one warp is left the tree finishes inside that warp with register exchanges
//       between lanes, with no barrier and no shared memory.
//@ end

void sum_5_unroll_last_warp(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    //@ guided
    // TODO: as stage 4: ch02::reduce_in_passes with kPerBlock values per block.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
