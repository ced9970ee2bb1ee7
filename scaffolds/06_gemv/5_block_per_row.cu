// Chapter 6, stage 5: y = A x, one block per row.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/06_gemv/stages.cuh; the lesson is chapters/06_gemv/README.md.
// Grade it with `make check-chapter 6`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=6 STAGE=5` when stuck.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// kFloat4: K % 4 == 0, 16-byte loads; otherwise scalar loads.
template <bool kFloat4>
__global__ void __launch_bounds__(kThreads)
    gemv_block_per_row_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                              std::int64_t K)
{
    // TODO: row = blockIdx.x. Thread t takes float4s t, t + kThreads, ... of the row (scalars when
    //       !kFloat4). Combine with wb::block_reduce_sum<kThreads>(sum, scratch), where scratch
    //       is a __shared__ float[kThreads / 32]; thread 0 writes y[row].
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which a whole block owns a row, so that a very long row is read by many warps at once, their
//       partial sums combined through shared memory.
//@ end

void gemv_5_block_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    //@ guided
    // TODO: M blocks of kThreads threads, the float4 instance when K % 4 == 0.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)A, (void)x, (void)y, (void)M, (void)K, (void)stream;
}

}   // namespace WORKBOOK_TRACK
