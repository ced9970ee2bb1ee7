// Catalog, chapter 6, stage 5: split-K, each block's share of a row added into y with atomicAdd, y never set to 0.
// expect: wrong "without setting it to 0 first"
//
// The README's alternative for long rows: several blocks per row, each reducing a slice of it and
// adding its partial sum into y[row] with atomicAdd, in one launch. Right, if y starts at 0; the
// launcher never sets it (a cudaMemsetAsync of y on the stream before the kernel), and the contract
// says y holds garbage on entry. The grader fills y with NaN, and NaN + x is NaN, so it must reject the
// kernel and, as the graders of chapters 2 and 10 do for a single result (harness/output_contract.hpp),
// name the missing initialisation: it runs the call again with y = 0 and, when y then comes out right,
// says so. (Before that check, an H200 and the CPU emulator rejected it on the first case, 1 x 1, with
// the generic cause for NaN, a read of memory nobody wrote, which never says that y must be set to 0.)
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
    if (threadIdx.x == 0) atomicAdd(&y[row], sum);   // the bug: y[row] was never set to 0
}

}   // namespace

void gemv_5_block_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
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
