// Catalog, chapter 6, stage 5: the block's partial sums reduced in place, in the row of A it has just read.
// expect: wrong "wrote into an input array"
//
// The in-place tree of the textbook reductions, `in[t] += in[t + s]` in global memory, carried over to
// a block per row: once the block has read its row, the learner treats the row's first 256 floats as
// free scratch (a const_cast), stores each thread's partial sum there and halves it down to A[row][0].
// y comes out right for every shape, and on the CPU emulator nothing else is looked at. But A is an
// input: after the call the first 256 columns of every row with K >= 256 hold partial sums, and a
// caller that multiplies the same weights by the next vector (every decoding step of an LLM) gets
// garbage. The grader must compare A and x after the call with what it uploaded and name the write
// into the input, as it now does after every call (an H200 passed it before, x1.53 over reference stage
// 4). The recheck after timing does
// recompute the reference from the overwritten A, but at K = 262144 its tolerance, (K + 1) 2^-24
// sum |a x|, is about 1000, and the 256 overwritten columns change y by far less than that.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// kFloat4: K % 4 == 0, 16-byte loads; otherwise scalar loads. No __restrict__ on A: it is written.
template <bool kFloat4>
__global__ void __launch_bounds__(kThreads)
    gemv_in_place_kernel(const float* A, const float* __restrict__ x, float* __restrict__ y, std::int64_t K)
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
    if (K < kThreads) {   // too short to hold 256 partial sums: the shared-memory reduction
        sum = wb::block_reduce_sum<kThreads>(sum, scratch);
        if (threadIdx.x == 0) y[row] = sum;
        return;
    }
    // the bug: the row of A, already read, used as the reduction's scratch
    float* partial = const_cast<float*>(A) + row * K;
    __syncthreads();   // every thread has finished reading the row
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s /= 2) {
        if (static_cast<int>(threadIdx.x) < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) y[row] = partial[0];
}

}   // namespace

void gemv_5_block_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(M);
    if (K % 4 == 0) {
        gemv_in_place_kernel<true><<<blocks, kThreads, 0, stream>>>(A, x, y, K);
    } else {
        gemv_in_place_kernel<false><<<blocks, kThreads, 0, stream>>>(A, x, y, K);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
