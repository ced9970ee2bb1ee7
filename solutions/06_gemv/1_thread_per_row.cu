// Chapter 6, stage 1: y = A x, one thread per row.          (reference solution)
//
// The baseline. Each thread sums its own row, so no thread waits for another, but the lanes of a
// warp read addresses K * 4 bytes apart: every load instruction touches 32 different lines and
// uses 4 bytes of each 32-byte sector it brings in, counting on L1 to keep the rest until the
// thread comes back for it.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void gemv_thread_per_row_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                           float* __restrict__ y, std::int64_t M, std::int64_t K)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= M) return;
    const float* a = A + row * K;
    float sum = 0.0f;
    for (std::int64_t k = 0; k < K; ++k) sum += a[k] * x[k];
    y[row] = sum;
}

}   // namespace

void gemv_1_thread_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                           cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, kThreads));
    gemv_thread_per_row_kernel<<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
