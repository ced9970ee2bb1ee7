// Catalog, chapter 6, stage 3: the float4 loop loads each step's vectors one step early, unguarded.
// expect: wrong "memcheck found"
// emulated: crashed "read past the end of an input array"
//
// The reference stage 3 with a software prefetch: the loop loads the next step's float4 of A and of x
// before it adds the current one, and the first step's before the loop, all without the test k < K / 4.
// The vectors loaded past a row's end are never added, so every y is right; but a lane's last step reads
// 32 vectors past its position: into the next row of A (harmless), and past the end of x and, on the
// last row, of A. Only the float4 path (K % 4 == 0) does it. On a GPU memcheck sees it, but only since
// the sanitizer pass runs on to the first call of each kernel (harness/sanitizer_plan.hpp): the first 8
// calls of the chapter all have K % 4 != 0, so the float4 kernel never ran under the tools before. The
// emulator stops the first load that finds the guard bytes after x.
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
    // The bug: each step's loads are made one step early, before the test that the step exists.
    float4 a = a4[lane], xv = __ldg(&x4[lane]);
    for (std::int64_t k = lane; k < K / 4; k += wb::kWarpSize) {
        const float4 a_next = a4[k + wb::kWarpSize];   // past the row's end on a lane's last step
        const float4 x_next = __ldg(&x4[k + wb::kWarpSize]);
        sum += dot4(a, xv);
        a = a_next;
        xv = x_next;
    }
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
