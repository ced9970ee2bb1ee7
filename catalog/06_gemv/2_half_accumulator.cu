// Catalog, chapter 6, stage 2: one warp per row, with every product and partial sum kept in __half.
// expect: wrong "accumulating in half precision loses precision: accumulate in float"
//
// A precision downgrade: half precision keeps 11 significant bits, so each product and each addition
// is off by up to 2^-11 of its size, about a thousand times the float32 error bound the grader allows.
// Small-integer rows stay exact in half (the first shape, 1 x 1, passes its integer case); the first
// random-valued case must fail, and the grader must name the half-precision accumulator (its results
// are exactly fp16 values), not a term missed in a sum.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

#include <cuda_fp16.h>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

__global__ void gemv_half_accumulator_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                             float* __restrict__ y, std::int64_t M, std::int64_t K)
{
    const int lane = threadIdx.x % wb::kWarpSize;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    if (row >= M) return;
    const float* a = A + row * K;
    __half sum = __float2half(0.0f);   // the bug: the accumulator is a __half
    for (std::int64_t k = lane; k < K; k += wb::kWarpSize) sum = __hfma(__float2half(a[k]), __float2half(x[k]), sum);
    for (int offset = wb::kWarpSize / 2; offset > 0; offset /= 2) {
        sum = __hadd(sum, __shfl_down_sync(wb::kFullWarpMask, sum, offset));
    }
    if (lane == 0) y[row] = __half2float(sum);
}

}   // namespace

void gemv_2_warp_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, kRowsPerBlock));
    gemv_half_accumulator_kernel<<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
