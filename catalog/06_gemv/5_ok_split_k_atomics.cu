// expect: passed
//
// Chapter 6, stage 5, split along K instead of one block per row: every row is cut into slices of
// 16384 floats, one block of 256 threads per slice (rows on gridDim.x, slices on gridDim.y), and each
// block adds its partial sum into y[row] with atomicAdd, after the launcher has set y to 0 with a
// cudaMemsetAsync on the given stream. The sums arrive in any order, so the last bits of a random-valued
// result change from run to run; the grader's tolerance covers every order, and sums of small integers
// stay exact. A right kernel: the grader must pass it, on the CPU emulator and on a GPU (on 1024 x 262144
// it runs 16 blocks per row, more parallel than the reference's one; seen on an H200: passed, x1.78
// over reference stage 4 where x1.43 was required).
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kSliceFloats = 16384;   // floats of a row per block: 16 per thread

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// Block (row, s) sums columns [s * kSliceFloats, (s + 1) * kSliceFloats) of its row.
template <bool kFloat4>
__global__ void __launch_bounds__(kThreads)
    gemv_split_k_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, std::int64_t K)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t row = blockIdx.x;
    const std::int64_t begin = static_cast<std::int64_t>(blockIdx.y) * kSliceFloats;
    const std::int64_t end = std::min(begin + kSliceFloats, K);
    float sum = 0.0f;
    if constexpr (kFloat4) {
        const auto* a4 = reinterpret_cast<const float4*>(A + row * K);
        const auto* x4 = reinterpret_cast<const float4*>(x);
        for (std::int64_t k = begin / 4 + threadIdx.x; k < end / 4; k += kThreads) sum += dot4(a4[k], __ldg(&x4[k]));
    } else {
        const float* a = A + row * K;
        for (std::int64_t k = begin + threadIdx.x; k < end; k += kThreads) sum += a[k] * __ldg(&x[k]);
    }
    sum = wb::block_reduce_sum<kThreads>(sum, scratch);
    if (threadIdx.x == 0) atomicAdd(&y[row], sum);   // y was set to 0 on the stream before this launch
}

}   // namespace

void gemv_5_block_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    // y holds garbage on entry: 0 first, on the same stream, then the blocks add into it.
    WB_CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(M) * sizeof(float), stream));
    // Rows on x (up to 2^26 of them), the slices of a row on y (at most 4096 for K <= 2^26).
    const dim3 grid(static_cast<unsigned>(M), static_cast<unsigned>(wb::ceil_div<std::int64_t>(K, kSliceFloats)));
    if (K % 4 == 0) {
        gemv_split_k_kernel<true><<<grid, kThreads, 0, stream>>>(A, x, y, K);
    } else {
        gemv_split_k_kernel<false><<<grid, kThreads, 0, stream>>>(A, x, y, K);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
