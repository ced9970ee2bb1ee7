// Catalog, chapter 10, stage 1: the thread's element index kept in an int (32 bits).
// expect: crashed "32 bits"
// emulated: skip "the emulated sizes stay far below 2^31 elements, the GPU grader sums 2^31 + 2^28 + 3"
//
// The reference stage 1 with `int i = blockIdx.x * blockDim.x + threadIdx.x`, the first line of most
// first kernels. blockIdx.x * blockDim.x is an unsigned product and does not wrap below 2^32, but the
// int it is stored in turns negative from element 2^31 on. The test `i < n` compares with the 64-bit n
// and lets those threads through, and in[i] reads up to 8 GiB before the start of the input: an
// illegal memory access, on the grader's case of 2^31 + 2^28 + 3 elements (9 GiB of input, run where
// the GPU has 13 GiB free). Every smaller input, the timed 2^24 included, is summed right, so only
// that case can catch it; the grader must say that an index held in 32 bits went negative. Were the
// memory before the input mapped, the reads would return garbage instead, and the sum would not be a
// sum of the marked elements (a wrong result). On a GPU without the memory the case is skipped and
// this entry passes.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    atomic_sum_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;   // the bug: negative from 2^31 on
    if (i < n) atomicAdd(out, in[i]);
}

}   // namespace

void sum_1_atomic_per_thread(const float* in, float* out, std::int64_t n, cudaStream_t stream)
{
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    atomic_sum_kernel<<<blocks, kThreads, 0, stream>>>(in, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
