// Catalog, chapter 3, stage 3: one warp per row that divides by sum + 1e-5 "to be safe".
// expect: wrong "elements are wrong"
//
// The reference stage 3 with the habit of LayerNorm carried over: inv = 1 / (sum + 1e-5f). After the
// maximum is subtracted the sum is at least 1 (the maximum contributes exp(0)), so the eps protects
// nothing and only biases every output by a factor 1 / (1 + 1e-5 / sum): up to 1e-5 relative, about
// 170 float ulps, where a right kernel is off by a few. It shows most where the exact answer is
// easiest: a row of one column must give exactly 1.0, and so must the special row with one finite
// value among -inf (exp(0) / 1 is exact in float); both come out as 0.99999. The tolerance E of a row
// (twice the bound of a long sum of exponentials) is above 1.39e-5 for every row length, so an output
// that is always 1e-5 too small fits inside it: the grader needs exact answers where they are exact
// (rows of one column, one finite value) or a tolerance that does not grow where nothing is summed.
// (Before the grader checked row 0 exactly, an H100 passed it, speed check and compute-sanitizer
// included, as the emulator did.)
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;
constexpr float kEps = 1e-5f;   // the bug: a softmax needs no eps, and this one changes every output

__global__ void __launch_bounds__(kThreads)
    softmax_warp_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t rows, std::int64_t cols)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;   // the whole warp leaves together
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float m = -INFINITY;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) m = fmaxf(m, xr[c]);
    m = wb::warp_reduce_max(m);

    float s = 0.0f;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) s += __expf(xr[c] - m);
    s = wb::warp_reduce_sum(s);

    const float inv = 1.0f / (s + kEps);
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
