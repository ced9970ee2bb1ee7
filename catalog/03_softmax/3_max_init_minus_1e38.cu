// Catalog, chapter 3, stage 3: the row maximum starts at -1e38 instead of -INFINITY.
// expect: wrong "start the maximum at -INFINITY"
//
// The reference stage 3 with one change. A start of -1e38 looks safely below any input, but floats
// reach -3.4e38: a row whose values all lie between -FLT_MAX and -1e38 keeps max = -1e38, every
// exp(x - max) underflows to 0, and the row becomes 0 / 0 = NaN.
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

    float m = -1.0e38f;   // the bug: a finite start, above the most negative floats
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
