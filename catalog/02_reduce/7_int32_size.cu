// Catalog, chapter 2, stage 7: the element count passed to the kernel as int.
// expect: wrong "converted to int"
// emulated: skip "the emulated sizes stay far below 2^31 elements, the GPU grader sums 2^31 + 2^28 + 3 ones"
//
// The reference stage 7 with the signature `(const float* in, float* partial, int n)`, common in
// first reductions. Every n below 2^31 is summed right. Past it, where the contract still allows n
// and the grader tries n = 2^31 + 2^28 + 3 ones on a GPU with 13 GiB free, n converted to int is
// negative: no thread loads anything and the sum is 0. The grader must say the count was
// converted to int. On a GPU without the memory the case is skipped and this entry passes.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullMask = 0xffffffffu;

template <int kBlock>
__global__ void __launch_bounds__(kBlock)
    reduce_grid_stride_kernel(const float* __restrict__ in, float* __restrict__ partial, int n)   // the bug
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
        reduce_grid_stride_kernel<kThreads><<<1, kThreads, 0, stream>>>(in, out, static_cast<int>(n));
        WB_CHECK_LAUNCH();
        return;
    }
    reduce_grid_stride_kernel<kThreads><<<blocks, kThreads, 0, stream>>>(in, workspace, static_cast<int>(n));
    WB_CHECK_LAUNCH();
    reduce_grid_stride_kernel<kThreads>
        <<<1, kThreads, 0, stream>>>(workspace, out, static_cast<int>(blocks));   // the partials
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
