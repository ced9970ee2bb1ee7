// Chapter 10, stage 3: the dot product in one block.                    (reference solution)
//
// The classic first CUDA exercise, and correct: one block of 1024 threads strides over x and y, each
// thread accumulates its products in a register (fmaf: the product is not rounded on its own), the
// block reduces the 1024 sums, and thread 0 writes the result. No atomic is needed, since one block
// owns out[0]. Why it wastes the GPU: a block runs on one SM, and one SM can keep only so many loads
// in flight; the memory system delivers a small fraction of its bandwidth to it while every other SM
// sits idle. Stage 4 spreads the same work over a grid.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 1024;

__global__ void __launch_bounds__(kThreads)
    one_block_dot_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                         std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    float v = 0.0f;
    for (std::int64_t i = threadIdx.x; i < n; i += kThreads) v = fmaf(x[i], y[i], v);
    v = wb::block_reduce_sum<kThreads>(v, scratch);
    if (threadIdx.x == 0) out[0] = v;   // the only block: a plain store
}

}   // namespace

void dot_3_one_block(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream)
{
    one_block_dot_kernel<<<1, kThreads, 0, stream>>>(x, y, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
