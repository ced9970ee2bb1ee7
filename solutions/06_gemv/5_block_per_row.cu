// Chapter 6, stage 5: y = A x, one block per row.          (reference solution)
//
// Why it is faster than stage 4 for long rows: at one warp per row, 1024 rows are 1024 warps,
// 8 per multiprocessor of a GPU that can hold 64, and each warp streams 1 MB alone with only a few
// loads in flight. One block of 256 threads per row puts 8 times more threads on the same bytes,
// fills every multiprocessor, and keeps 8 times more loads in flight. The partial sums of the
// block meet in wb::block_reduce_sum (shuffles in each warp, then one warp over the warp sums).
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
    const std::int64_t row = blockIdx.x;
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
    const auto blocks = static_cast<unsigned>(M);
    if (K % 4 == 0) {
        gemv_block_per_row_kernel<true><<<blocks, kThreads, 0, stream>>>(A, x, y, K);
    } else {
        gemv_block_per_row_kernel<false><<<blocks, kThreads, 0, stream>>>(A, x, y, K);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
