// Catalog, chapter 6, stage 3: float4 loads of every row whatever K, the remainder K % 4 added with scalar loads.
// expect: crashed "misaligned address"
//
// The learner handles the tail (the last K % 4 floats of each row, with scalar loads) but not the
// alignment: row i starts at A + i * K, a 16-byte boundary for every row only when K % 4 == 0. With
// K = 1, 3, 33 or 1001, row 1 already starts 4 or 12 bytes past one, and a float4 load from it is a
// hard error on a GPU ("misaligned address"), not a slow path. The contract says so and the grader
// tries those K (seen on an H200: crashed, "cudaErrorMisalignedAddress (misaligned address)"). A CPU
// serves a misaligned 16-byte load without complaint; the emulator's access checker, which sees the
// address and the width of every load, stops a float4 that is not 16-byte aligned as the GPU does.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

__global__ void gemv_float4_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                   std::int64_t M, std::int64_t K)
{
    const int lane = threadIdx.x % wb::kWarpSize;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    if (row >= M) return;
    const float* a = A + row * K;
    const auto* a4 = reinterpret_cast<const float4*>(a);   // the bug: 16-byte aligned only if K % 4 == 0
    const auto* x4 = reinterpret_cast<const float4*>(x);
    const std::int64_t vectors = K / 4;
    float sum = 0.0f;
    for (std::int64_t k = lane; k < vectors; k += wb::kWarpSize) sum += dot4(a4[k], __ldg(&x4[k]));
    for (std::int64_t k = 4 * vectors + lane; k < K; k += wb::kWarpSize) sum += a[k] * __ldg(&x[k]);   // the tail
    sum = wb::warp_reduce_sum(sum);
    if (lane == 0) y[row] = sum;
}

}   // namespace

void gemv_3_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, kRowsPerBlock));
    gemv_float4_kernel<<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
