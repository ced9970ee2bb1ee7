// Chapter 6, stage 4: y = A x, groups of G lanes per row (several rows per warp).          (reference solution)
//
// Why it is faster than stage 3 for short rows: with K = 32 a warp per row has 8 float4s to load
// and 24 idle lanes, and pays a full 5-step reduction for 128 bytes. Groups of G = 8 lanes give
// every lane a float4, let one warp load 4 rows (512 contiguous bytes) per instruction, and
// reduce in 3 steps. For long rows G = 32 and this is stage 3 again.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// Group width G (a power of two <= 32); kFloat4: K % 4 == 0, 16-byte loads, else scalar loads.
template <int G, bool kFloat4>
__global__ void gemv_subwarp_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                    std::int64_t M, std::int64_t K)
{
    const std::int64_t row = (static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x) / G;
    const int lane = threadIdx.x % G;   // lane within the group
    float sum = 0.0f;
    // No early return: every lane of the warp must reach the shuffles of warp_reduce_sum.
    if (row < M) {
        if constexpr (kFloat4) {
            const auto* a4 = reinterpret_cast<const float4*>(A + row * K);
            const auto* x4 = reinterpret_cast<const float4*>(x);
            for (std::int64_t k = lane; k < K / 4; k += G) sum += dot4(a4[k], __ldg(&x4[k]));
        } else {
            const float* a = A + row * K;
            for (std::int64_t k = lane; k < K; k += G) sum += a[k] * __ldg(&x[k]);
        }
    }
    sum = wb::warp_reduce_sum<G>(sum);   // over this group's G lanes only
    if (row < M && lane == 0) y[row] = sum;
}

template <int G>
void launch(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M * G, kThreads));
    if (K % 4 == 0) {
        gemv_subwarp_kernel<G, true><<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    } else {
        gemv_subwarp_kernel<G, false><<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace

void gemv_4_subwarp(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    // The smallest power of two G with 4 G >= K (one float4 per lane), at most a warp.
    const std::int64_t vectors = wb::ceil_div<std::int64_t>(K, 4);
    if (vectors <= 1) {
        launch<1>(A, x, y, M, K, stream);
    } else if (vectors <= 2) {
        launch<2>(A, x, y, M, K, stream);
    } else if (vectors <= 4) {
        launch<4>(A, x, y, M, K, stream);
    } else if (vectors <= 8) {
        launch<8>(A, x, y, M, K, stream);
    } else if (vectors <= 16) {
        launch<16>(A, x, y, M, K, stream);
    } else {
        launch<32>(A, x, y, M, K, stream);
    }
}

}   // namespace WORKBOOK_TRACK
