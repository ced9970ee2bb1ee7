// Catalog, chapter 2, stage 7: the second pass launched without its stream.
// expect: wrong "another stream than the one it was given"
//
// The partial sums are reduced by a launch that forgot the stream argument, so it runs on the legacy
// default stream, which the grader's non-blocking stream is not ordered with: it may read the partials
// before the first pass wrote them, and it is outside the grader's timing. Often the numbers are right
// anyway; the launch ledger sees the kernel on another stream at the first call.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullMask = 0xffffffffu;

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_grid_stride_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    __shared__ float sdata[kBlock];
    const unsigned tid = threadIdx.x;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kBlock;
    float acc = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kBlock + tid; i < n; i += stride) {
        acc += in[i];   // a running sum in a register: no shared memory, no barrier
    }
    sdata[tid] = acc;
    __syncthreads();

    // The block reduction of stage 6, once per block.
#pragma unroll
    for (int s = kBlock / 2; s > 32; s /= 2) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        float v = sdata[tid] + sdata[tid + 32];
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
        if (tid == 0) partial[blockIdx.x] = v;
    }
}

}   // namespace

void sum_7_many_per_thread(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    // As many blocks as the GPU holds at once (asked once), no more than the 4096 partial sums the
    // workspace holds, and fewer for small inputs: at least two elements per thread.
    static const int max_blocks =
        std::clamp(wb::resident_blocks(reduce_grid_stride_kernel<kThreads>, kThreads), 1, 4096);
    const auto blocks =
        static_cast<unsigned>(std::min<std::int64_t>(wb::ceil_div<std::int64_t>(n, 2 * kThreads), max_blocks));
    if (blocks == 1) {
        reduce_grid_stride_kernel<kThreads><<<1, kThreads, 0, stream>>>(in, out, n);
        WB_CHECK_LAUNCH();
        return;
    }
    reduce_grid_stride_kernel<kThreads><<<blocks, kThreads, 0, stream>>>(in, workspace, n);
    WB_CHECK_LAUNCH();
    reduce_grid_stride_kernel<kThreads><<<1, kThreads>>>(workspace, out, blocks);   // the bug: no stream
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
