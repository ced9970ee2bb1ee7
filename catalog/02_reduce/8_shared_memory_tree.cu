// Catalog, chapter 2, stage 8: stage 7 handed in again, its block reduction still a shared-memory tree.
// expect: wrong "not this stage's idea"
//
// On an H100 the reference stage 8 gains only about x1.0 over stage 7, so the speed rule asks for x0.95
// and a copy of stage 7 would pass on speed. The stage's idea is visible in the launch: a shuffle
// reduction keeps one shared slot per warp, the tree one per thread.
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

void sum_8_warp_shuffle(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
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
    reduce_grid_stride_kernel<kThreads><<<1, kThreads, 0, stream>>>(workspace, out, blocks);   // the partials
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
