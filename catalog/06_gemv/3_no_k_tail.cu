// Catalog, chapter 6, stage 3: a row loop four floats at a time that assumes K is a multiple of 4.
// expect: wrong "1 x 1, small integers"
//
// Each lane takes groups of four columns, K / 4 of them, and the last K % 4 products are never added
// (the stage 3 reference falls back to a scalar loop when K % 4 != 0). The very first shape, 1 x 1,
// has no whole group at all, so y = 0 where A x is a product of two non-zero integers: the grader must
// reject it on that first exact case and name it.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

__global__ void gemv_vectors_only_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                         float* __restrict__ y, std::int64_t M, std::int64_t K)
{
    const int lane = threadIdx.x % wb::kWarpSize;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    if (row >= M) return;
    const float* a = A + row * K;
    float sum = 0.0f;
    for (std::int64_t k = lane; k < K / 4; k += wb::kWarpSize) {   // the bug: the last K % 4 columns are dropped
        float4 av, xv;
        av.x = a[4 * k], av.y = a[4 * k + 1], av.z = a[4 * k + 2], av.w = a[4 * k + 3];
        xv.x = x[4 * k], xv.y = x[4 * k + 1], xv.z = x[4 * k + 2], xv.w = x[4 * k + 3];
        sum += dot4(av, xv);
    }
    sum = wb::warp_reduce_sum(sum);
    if (lane == 0) y[row] = sum;
}

}   // namespace

void gemv_3_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, kRowsPerBlock));
    gemv_vectors_only_kernel<<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
