// Chapter 2, stage 6: complete unrolling, block size as a template parameter.          (reference solution)
//
// Why it is faster than stage 5: the block size is a compile-time constant, so the tree loop has a
// known trip count. The compiler unrolls it completely: no loop counter, no loop test, no shift, and
// the `tid < s` tests become comparisons with constants. What remains per step is one add, one
// shared-memory round trip and the barrier. The gain is modest on a recent GPU: the barriers
// dominate, and they are still there.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr unsigned kFullMask = 0xffffffffu;

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_unrolled_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    static_assert(kBlock >= 64 && kBlock <= 1024 && (kBlock & (kBlock - 1)) == 0, "a power of two, 64..1024");
    __shared__ float sdata[kBlock];
    const unsigned tid = threadIdx.x;
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * (2 * kBlock) + tid;
    float v = i < n ? in[i] : 0.0f;
    if (i + kBlock < n) v += in[i + kBlock];
    sdata[tid] = v;
    __syncthreads();

#pragma unroll
    for (int s = kBlock / 2; s > 32; s /= 2) {   // constant bounds: unrolled into straight-line code
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        v = sdata[tid] + sdata[tid + 32];
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
        if (tid == 0) partial[blockIdx.x] = v;
    }
}

}   // namespace

void sum_6_complete_unroll(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    constexpr int kThreads = 256;   // the launch and the template argument must agree
    ch02::reduce_in_passes(in, out, n, workspace, 2 * kThreads,
                           [&](const float* src, float* dst, std::int64_t count, unsigned blocks) {
                               reduce_unrolled_kernel<kThreads><<<blocks, kThreads, 0, stream>>>(src, dst, count);
                               WB_CHECK_LAUNCH();
                           });
}

}   // namespace WORKBOOK_TRACK
