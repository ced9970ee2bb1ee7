// Chapter 6, stage 3: y = A x, one warp per row, float4 loads.          (reference solution)
//
// Why it is faster than stage 2: each lane loads 16 bytes of A (and of x) per instruction instead
// of 4, so a warp has 512 bytes of its row in flight per load instead of 128, with a quarter of the
// loop iterations and index arithmetic. That decides the speed when there are few warps (a wide
// matrix); with many rows the scalar loads of stage 2 already keep the memory busy. float4 needs
// 16-byte aligned rows, that is K % 4 == 0; other K take the scalar loop of stage 2, in a kernel of
// its own: with both loops in one kernel the compiler scheduled the float4 loop worse (fewer loads
// in flight, measured about 10% slower).
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// K % 4 == 0: every row is 16-byte aligned.
__global__ void gemv_float4_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                   std::int64_t M, std::int64_t K)
{
    const int lane = threadIdx.x % wb::kWarpSize;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    if (row >= M) return;
    const auto* a4 = reinterpret_cast<const float4*>(A + row * K);
    const auto* x4 = reinterpret_cast<const float4*>(x);
    float sum = 0.0f;
    for (std::int64_t k = lane; k < K / 4; k += wb::kWarpSize) sum += dot4(a4[k], __ldg(&x4[k]));
    sum = wb::warp_reduce_sum(sum);
    if (lane == 0) y[row] = sum;
}

/// Any K: scalar loads (stage 2).
__global__ void gemv_scalar_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                   std::int64_t M, std::int64_t K)
{
    const int lane = threadIdx.x % wb::kWarpSize;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    if (row >= M) return;
    const float* a = A + row * K;
    float sum = 0.0f;
    for (std::int64_t k = lane; k < K; k += wb::kWarpSize) sum += a[k] * __ldg(&x[k]);
    sum = wb::warp_reduce_sum(sum);
    if (lane == 0) y[row] = sum;
}

}   // namespace

void gemv_3_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, kRowsPerBlock));
    if (K % 4 == 0) {
        gemv_float4_kernel<<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    } else {
        gemv_scalar_kernel<<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
