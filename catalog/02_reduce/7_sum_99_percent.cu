// Catalog, chapter 2, stage 7: sums the first 99% of the input and scales the result up.
// expect: wrong "integer inputs"
//
// A "fast" reduction that skips the last 1% of the elements and multiplies by n / m to make up for
// them. On random floats the answer is close; on the exact integer sums it cannot be right, and those
// come first, so the grader must reject it there (its message says the inputs were integers).
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kBlocks = 1024;   // at most 1024 partial sums, far below the workspace's 8192

__global__ void partial_sums_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t m)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    float v = 0.0f;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += stride) {
        v += in[i];
    }
    v = wb::block_reduce_sum<kThreads>(v, scratch);
    if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

__global__ void final_sum_kernel(const float* __restrict__ partial, float* __restrict__ out, int count, float scale)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    float v = 0.0f;
    for (int i = threadIdx.x; i < count; i += blockDim.x) v += partial[i];
    v = wb::block_reduce_sum<kThreads>(v, scratch);
    if (threadIdx.x == 0) out[0] = v * scale;
}

}   // namespace

void sum_7_many_per_thread(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    const std::int64_t m = n - n / 100;   // the bug: the last n / 100 elements are never read ...
    const float scale = static_cast<float>(static_cast<double>(n) / static_cast<double>(m));   // ... but "made up for"
    const int blocks = static_cast<int>(std::min<std::int64_t>(kBlocks, wb::ceil_div<std::int64_t>(m, kThreads)));
    partial_sums_kernel<<<blocks, kThreads, 0, stream>>>(in, workspace, m);
    WB_CHECK_LAUNCH();
    final_sum_kernel<<<1, kThreads, 0, stream>>>(workspace, out, blocks, scale);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
