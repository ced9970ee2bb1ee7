// Catalog, chapter 6, stage 5: persistent blocks walk the rows, with no barrier before the warp-sum slots are reused.
// expect: wrong "racecheck found | elements are wrong"
// emulated: crashed "shared memory race"
//
// A grid of 8 blocks per multiprocessor (as many as stay resident), each block walking the rows
// blockIdx.x, blockIdx.x + gridDim.x, ...; the block reduction is written by hand: warp sums to a
// shared array, a barrier, warp 0 adds the 8 slots. What is missing is the second barrier, at the end
// of each row: warps 1 to 7 go on to their next row and store its warp sums into the slots warp 0 may
// not have read yet. The reference's wb::block_reduce_sum has that barrier; a hand-written one often
// does not, because with one row per block it is not needed. The race only exists where a block does
// more than one row, that is where M exceeds the grid (about a thousand rows on an H100), and on a GPU
// warp 0's few shuffles almost always win against a whole row of loads, so the values come out right:
// only the racecheck pass can see it, and it runs the grader's first few shapes only. When those were
// all tiny (M <= 7), an H200 passed it (x1.73, "memcheck, racecheck and synccheck found nothing"); with
// WORKBOOK_SANITIZER_RUNS=40, so that the pass reached 5000 x 33, racecheck reported the hazard. 5000 x
// 33 is now the grader's second shape. The emulator's shared-memory checker sees the store over a word
// another warp read in the same barrier interval.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / wb::kWarpSize;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

template <bool kFloat4>
__global__ void __launch_bounds__(kThreads)
    gemv_persistent_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                           std::int64_t M, std::int64_t K)
{
    __shared__ float warp_sums[kWarps];
    const int lane = threadIdx.x % wb::kWarpSize;
    const int warp = threadIdx.x / wb::kWarpSize;
    for (std::int64_t row = blockIdx.x; row < M; row += gridDim.x) {
        float sum = 0.0f;
        if constexpr (kFloat4) {
            const auto* a4 = reinterpret_cast<const float4*>(A + row * K);
            const auto* x4 = reinterpret_cast<const float4*>(x);
            for (std::int64_t k = threadIdx.x; k < K / 4; k += kThreads) sum += dot4(a4[k], __ldg(&x4[k]));
        } else {
            const float* a = A + row * K;
            for (std::int64_t k = threadIdx.x; k < K; k += kThreads) sum += a[k] * __ldg(&x[k]);
        }
        sum = wb::warp_reduce_sum(sum);
        if (lane == 0) warp_sums[warp] = sum;
        __syncthreads();
        if (warp == 0) {
            float total = lane < kWarps ? warp_sums[lane] : 0.0f;
            total = wb::warp_reduce_sum(total);
            if (lane == 0) y[row] = total;
        }
        // the bug: no __syncthreads() here, before the next row's warp sums are stored
    }
}

}   // namespace

void gemv_5_block_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    int device = 0, sms = 0;
    WB_CUDA_CHECK(cudaGetDevice(&device));
    WB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(M, static_cast<std::int64_t>(sms) * 8));
    if (K % 4 == 0) {
        gemv_persistent_kernel<true><<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    } else {
        gemv_persistent_kernel<false><<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
