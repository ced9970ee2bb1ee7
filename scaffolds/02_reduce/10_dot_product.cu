// Chapter 2, stage 10: the dot product, fused.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/02_reduce/stages.cuh; the lesson is chapters/02_reduce/README.md.
// Grade it with `make check-chapter 2`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=2 STAGE=10` when stuck.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;
constexpr int kTile = kThreads * kUnroll;
constexpr int kPartialsOffset = 32;
constexpr int kMaxBlocks = 4096;

/// acc + a.x*b.x + a.y*b.y + a.z*b.z + a.w*b.w, each product fused into its addition (one rounding).
__device__ __forceinline__ float dot4(float4 a, float4 b, float acc)
{
    // TODO: four fmaf calls.
    return acc;
}

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    dot_single_pass_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                           std::int64_t n, float* __restrict__ partials, unsigned* __restrict__ counter)
{
    // TODO: stage 9's kernel, loading kUnroll float4s of x AND of y per thread (__ldcs) before using them,
    //       and accumulating dot4(a[u], b[u], acc) instead of sum4. The tails: dot4 on the float4s
    //       left over, fmaf(x[i], y[i], acc) on the last n % 4.
    // TODO: the same block reduction and last-block finish (reset the counter).
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel that multiplies the two vectors element by element and reduces the products in the same pass, so that
//       no product array ever goes to memory; the last block combines the partial sums.
//@ end

void dot_10_dot_product(const float* x, const float* y, float* out, std::int64_t n, float* workspace,
                        cudaStream_t stream)
{
    //@ guided
    // TODO: as stage 9's launcher, with both inputs.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)y, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
