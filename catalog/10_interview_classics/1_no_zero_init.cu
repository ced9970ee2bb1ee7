// expect: wrong "atomicAdd into a NaN stays NaN"
//
// Chapter 10, stage 1, the most common slip of the atomic sum: the atomics add into out[0] without
// setting it to 0 first. The grader leaves NaN there, and NaN + x is NaN. On a GPU the sum of a NaN
// is the canonical NaN, which the grader tells from its poison and explains; the CPU emulator keeps
// the poison's bits through the additions, so there the output would read as never written: the
// grader runs the call once more with 0 in out[0], gets the right sum and names the missing
// initialisation (harness/output_contract.hpp).
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void atomic_sum_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, in[i]);
}

}   // namespace

void sum_1_atomic_per_thread(const float* in, float* out, std::int64_t n, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    atomic_sum_kernel<<<blocks, kThreads, 0, stream>>>(in, out, n);   // out[0] never set to 0
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
