// Catalog, chapter 10, stage 4: out[0] zeroed by cudaMemsetAsync without its stream argument.
// expect: wrong "stream it was given"
//
// The kernel is the reference's and is launched on the given stream, but the line that zeroes out[0]
// is `cudaMemsetAsync(out, 0, sizeof(float))`: the stream parameter has a default, 0, the legacy
// default stream. The grader's stream is non-blocking, so nothing orders that memset with the kernel
// or with the grader's own work: the memset may land after the atomics (the result is 0 or a part of
// the sum) or before the grader's poison has been written. It often gives the right number, which
// is why a learner does not notice; the launch ledger must name it at the first call.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    grid_dot_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    float v = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
        v = fmaf(x[i], y[i], v);
    v = wb::block_reduce_sum<kThreads>(v, scratch);
    if (threadIdx.x == 0) atomicAdd(out, v);
}

}   // namespace

void dot_4_grid_atomic(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream)
{
    static const int max_blocks = std::min(wb::resident_blocks(grid_dot_kernel, kThreads), 4096);
    const auto blocks = static_cast<unsigned>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(max_blocks, wb::ceil_div<std::int64_t>(n, kThreads))));
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float)));   // the bug: no stream, so the legacy default stream
    grid_dot_kernel<<<blocks, kThreads, 0, stream>>>(x, y, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
