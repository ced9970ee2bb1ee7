// Catalog, chapter 3, stage 3: the row maximum starts at 0 instead of -INFINITY.
// expect: wrong "start the maximum at -INFINITY"
//
// The reference stage 3 with one change. Every row holding a value above 0 comes out right, which
// is every row of random values in [-8, 8) and every special row up to the huge values. A row whose
// values are all far below zero gets max = 0: every exp(x - 0) underflows to 0 and the row becomes
// 0 / 0 = NaN. The grader must fail it on that row and say how the maximum must start.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

__global__ void __launch_bounds__(kThreads)
    softmax_warp_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t rows, std::int64_t cols)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;   // the whole warp leaves together, so no shuffle below misses a lane
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float m = 0.0f;   // the bug: the maximum starts at 0, not at -INFINITY
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) m = fmaxf(m, xr[c]);
    m = wb::warp_reduce_max(m);

    float s = 0.0f;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) s += __expf(xr[c] - m);
    s = wb::warp_reduce_sum(s);

    const float inv = 1.0f / s;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) yr[c] = __expf(xr[c] - m) * inv;
}

}   // namespace

void softmax_3_warp_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    softmax_warp_kernel<<<blocks, kThreads, 0, stream>>>(x, y, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
