// Catalog, chapter 6, stage 5: one block per row, the rows on gridDim.y.
// expect: crashed "launch was rejected"
//
// The reference stage 5 with the row taken from blockIdx.y. gridDim.y is limited to 65535 while
// the contract allows M up to 2^26: the launch for 70001 rows must be rejected. Every shape with
// M <= 65535 hides it.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// kFloat4: K % 4 == 0, 16-byte loads; otherwise scalar loads.
template <bool kFloat4>
__global__ void __launch_bounds__(kThreads)
    gemv_block_per_row_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                              std::int64_t K)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t row = blockIdx.y;   // the bug: rows on the grid's y dimension (at most 65535)
    float sum = 0.0f;
    if constexpr (kFloat4) {
        const auto* a4 = reinterpret_cast<const float4*>(A + row * K);
        const auto* x4 = reinterpret_cast<const float4*>(x);
        for (std::int64_t k = threadIdx.x; k < K / 4; k += kThreads) sum += dot4(a4[k], __ldg(&x4[k]));
    } else {
        const float* a = A + row * K;
        for (std::int64_t k = threadIdx.x; k < K; k += kThreads) sum += a[k] * __ldg(&x[k]);
    }
    sum = wb::block_reduce_sum<kThreads>(sum, scratch);   // every thread of the block calls it
    if (threadIdx.x == 0) y[row] = sum;
}

}   // namespace

void gemv_5_block_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const dim3 blocks(1, static_cast<unsigned>(M));
    if (K % 4 == 0) {
        gemv_block_per_row_kernel<true><<<blocks, kThreads, 0, stream>>>(A, x, y, K);
    } else {
        gemv_block_per_row_kernel<false><<<blocks, kThreads, 0, stream>>>(A, x, y, K);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
