// Catalog, chapter 6, stage 1: a grid capped at 65535 blocks, without a grid-stride loop.
// expect: wrong "without a grid-stride loop"
// emulated: skip "the emulated shapes (at most 70001 rows) need fewer than 65535 blocks of 256 rows"
//
// The reference stage 1 with the block count clamped to 65535, "the most a grid may have" (the limit
// of gridDim.y and z; gridDim.x goes to 2^31 - 1), and no loop to cover the rows beyond. 65535 blocks
// of 256 threads reach row 16776959, just below 2^24; the contract allows M up to 2^26. The grader's
// other shapes have at most 1048577 rows (4097 blocks), so every one passes. The case past the int
// range (17825795 x 132, 8.8 GiB, needs about 13 GiB free) leaves its last 1048835 rows unwritten:
// the windows from row 2^24 - 1 on still hold the poison while those below are right, and the grader
// must name a grid that stops short. On a GPU without the memory the case is skipped and this entry
// passes.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 65535;   // the bug: gridDim.x allows 2^31 - 1

__global__ void gemv_thread_per_row_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                           float* __restrict__ y, std::int64_t M, std::int64_t K)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= M) return;   // one row per thread: rows past the capped grid are never reached
    const float* a = A + row * K;
    float sum = 0.0f;
    for (std::int64_t k = 0; k < K; ++k) sum += a[k] * x[k];
    y[row] = sum;
}

}   // namespace

void gemv_1_thread_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                           cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(std::min(wb::ceil_div<std::int64_t>(M, kThreads), kMaxBlocks));
    gemv_thread_per_row_kernel<<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
