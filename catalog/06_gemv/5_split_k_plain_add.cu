// Catalog, chapter 6, stage 5: split-K with each slice's partial sum added into y[row] with a plain +=.
// expect: wrong "wrong"
// emulated: crashed "of the same launch stored at"
//
// The twin of 5_ok_split_k_atomics with `y[row] += sum` in place of atomicAdd (and the slices of a row
// numbered side by side, so that they run together). Right when a row has one slice (K <= 16384);
// with more, the blocks of a row run at the same time, finish together, and their loads of y[row]
// meet before their stores: updates are lost (an H200 fails the first such case, 2 x 100003 with 7
// slices a row, 3 runs in 3). On the CPU emulator blocks run whole, one after
// another on each worker, so the sums come out right there; its race checker between blocks reports the
// load of y[row] by a block after another block of the same launch stored it. The fix: atomicAdd (the
// ok twin), or one block per row.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kSliceFloats = 16384;   // floats of a row per block: 16 per thread

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// Block row * slices + s sums columns [s * kSliceFloats, (s + 1) * kSliceFloats) of its row.
template <bool kFloat4>
__global__ void __launch_bounds__(kThreads)
    gemv_split_k_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, std::int64_t K)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t slices = (K + kSliceFloats - 1) / kSliceFloats;
    const std::int64_t row = blockIdx.x / slices;
    const std::int64_t begin = blockIdx.x % slices * kSliceFloats;
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
    if (threadIdx.x == 0) y[row] += sum;   // the bug: the slices of a row run at the same time
}

}   // namespace

void gemv_5_block_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    // y holds garbage on entry: 0 first, on the same stream, then the blocks add into it.
    WB_CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(M) * sizeof(float), stream));
    // One block per slice, the slices of a row side by side in the launch (they run together).
    const auto grid = static_cast<unsigned>(M * wb::ceil_div<std::int64_t>(K, kSliceFloats));
    if (K % 4 == 0) {
        gemv_split_k_kernel<true><<<grid, kThreads, 0, stream>>>(A, x, y, K);
    } else {
        gemv_split_k_kernel<false><<<grid, kThreads, 0, stream>>>(A, x, y, K);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
