// Catalog, chapter 3, stage 3: softmax as exp(x) / sum(exp(x)), without subtracting the row maximum.
// expect: wrong "subtract the maximum first"
//
// Mathematically the same function, numerically not: expf overflows to inf for x > 88.7, and the
// row's result becomes inf / inf = NaN. Rows of ordinary values pass; the special row of values near
// 1e4, present in every test matrix, must fail at once, with the overflow named as the likely cause.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kWarpsPerBlock = 4;

__global__ void softmax_unshifted_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t rows,
                                         std::int64_t cols)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;   // the whole warp leaves together
    const float* in = x + row * cols;
    float* out = y + row * cols;
    float total = 0.0f;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) total += expf(in[c]);   // the bug: no max
    total = wb::warp_reduce_sum(total);
    const float scale = 1.0f / total;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) out[c] = expf(in[c]) * scale;
}

}   // namespace

void softmax_3_warp_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kWarpsPerBlock));
    softmax_unshifted_kernel<<<blocks, kWarpsPerBlock * wb::kWarpSize, 0, stream>>>(x, y, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
