// Catalog, chapter 3, stage 3: one warp per row, an output loop unrolled by 4 that skips the row's tail.
// expect: wrong "the loop over a row stops early"
//
// The maximum and the sum see every column, so every value written is right; the last cols % 4
// columns of each row are never written. For rows of 1 to 3 elements that is the whole output, which
// must not be taken for an untouched skeleton ("not implemented yet"): the grader must name the loop
// that stops early.
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

    float m = -INFINITY;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) m = fmaxf(m, xr[c]);
    m = wb::warp_reduce_max(m);

    float s = 0.0f;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) s += __expf(xr[c] - m);
    s = wb::warp_reduce_sum(s);

    const float inv = 1.0f / s;
    // The output loop unrolled by 4 (each lane writes 4 consecutive columns per step), and the bug: it
    // stops at the last whole group of 4, so the last cols % 4 columns of every row are never written.
    for (std::int64_t c = 4 * lane; c + 3 < cols; c += 4 * wb::kWarpSize) {
#pragma unroll
        for (int i = 0; i < 4; ++i) yr[c + i] = __expf(xr[c + i] - m) * inv;
    }
}

}   // namespace

void softmax_3_warp_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    softmax_warp_kernel<<<blocks, kThreads, 0, stream>>>(x, y, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
