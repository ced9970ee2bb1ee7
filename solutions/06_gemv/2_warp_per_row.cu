// Chapter 6, stage 2: y = A x, one warp per row, shuffle reduction.          (reference solution)
//
// Why it is faster than stage 1: the 32 lanes of a warp now read 32 consecutive floats of one row
// per step, one 128-byte line per load instruction (coalesced), instead of 32 lines 4 bytes at a
// time. The price is a reduction at the end of each row: five shuffle steps, nothing next to
// streaming K floats.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;   // one row per warp

__global__ void gemv_warp_per_row_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                         float* __restrict__ y, std::int64_t M, std::int64_t K)
{
    const int lane = threadIdx.x % wb::kWarpSize;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    if (row >= M) return;   // the whole warp leaves together: no lane is missing from the shuffles
    const float* a = A + row * K;
    float sum = 0.0f;
    for (std::int64_t k = lane; k < K; k += wb::kWarpSize) sum += a[k] * x[k];
    sum = wb::warp_reduce_sum(sum);
    if (lane == 0) y[row] = sum;
}

}   // namespace

void gemv_2_warp_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, kRowsPerBlock));
    gemv_warp_per_row_kernel<<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
