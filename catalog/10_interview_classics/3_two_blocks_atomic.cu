// Catalog, chapter 10, stage 3: two blocks of 1024 threads, each adding its sum atomically.
// expect: wrong "not this stage's idea"
// emulated: wrong "not this stage's idea"
//
// A right dot product, and a "small" grid that a learner may not count as one: out[0] is zeroed on the
// stream, the two blocks split the vectors with a grid-stride loop and each adds its block sum with
// one atomicAdd. Stage 3 is the single block whose one SM does all the work; its launch facts show
// two blocks, and the check of the stage's idea says so.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 1024;
constexpr int kBlocks = 2;

__global__ void __launch_bounds__(kThreads)
    two_block_dot_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                         std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    float v = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
         i += static_cast<std::int64_t>(kBlocks) * kThreads)
        v = fmaf(x[i], y[i], v);
    v = wb::block_reduce_sum<kThreads>(v, scratch);
    if (threadIdx.x == 0) atomicAdd(out, v);
}

}   // namespace

void dot_3_one_block(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream)
{
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    two_block_dot_kernel<<<kBlocks, kThreads, 0, stream>>>(x, y, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
