// expect: wrong "the grid-stride tail"
//
// Chapter 10, stage 4, with a grid-stride loop that covers only whole strides: it stops at
// n / stride * stride, as if n were a multiple of the grid's threads, and the last partial stride
// (the tail) is never read. Right whenever n is a multiple of the stride; for the small sizes of the
// grader the whole input is the tail, so the result is 0 or a part of the sum.
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
    const std::int64_t whole = n / stride * stride;   // the bug: the tail past the last whole stride is dropped
    float v = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < whole; i += stride)
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
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    grid_dot_kernel<<<blocks, kThreads, 0, stream>>>(x, y, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
