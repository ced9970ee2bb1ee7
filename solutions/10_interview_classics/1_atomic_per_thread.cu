// Chapter 10, stage 1: the sum with one atomicAdd per element.          (reference solution)
//
// Why it is slow: all n atomics target the same 4 bytes. An atomic is performed where the line lives
// (an L2 slice), and atomics on one address cannot overlap: each one reads the value the previous one
// left. However many SMs issue them, they drain through that one slice one after another, so the time
// grows with n and not with the bandwidth. Why the result varies: the atomics arrive in whatever
// order the warps reach them, and float addition is not associative, so the rounding differs from
// run to run (by a few units of 2^-24 * sum|x|; sums of small integers are exact in any order).
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    atomic_sum_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, in[i]);
}

}   // namespace

void sum_1_atomic_per_thread(const float* in, float* out, std::int64_t n, cudaStream_t stream)
{
    // The grader leaves NaN in out[0]; the atomics add into it, so it must start at 0 (on the stream,
    // before the kernel: the memset and the kernel run in order).
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    atomic_sum_kernel<<<blocks, kThreads, 0, stream>>>(in, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
