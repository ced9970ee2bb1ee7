// Chapter 6, stage 3: y = A x, one warp per row, float4 loads.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/06_gemv/stages.cuh; the lesson is chapters/06_gemv/README.md.
// Grade it with `make check-chapter 6`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=6 STAGE=3` when stuck.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// K % 4 == 0: every row is 16-byte aligned.
__global__ void gemv_float4_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                   std::int64_t M, std::int64_t K)
{
    // TODO: your stage 2 kernel, but view the row and x as float4 arrays
    //       (reinterpret_cast<const float4*>(A + row * K)) and let lane l take float4s l, l + 32,
    //       ... of the K / 4, adding dot4(a4[k], __ldg(&x4[k])).
}

/// Any K: scalar loads (stage 2).
__global__ void gemv_scalar_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                   std::int64_t M, std::int64_t K)
{
    // TODO: your stage 2 kernel, unchanged.
}

}   // namespace
//@ end
//@ outline
// TODO: stage 2's kernel reading the row and the vector with four-float vector loads.
// TODO: a scalar fallback for rows whose length or alignment rules the vector loads out.
//@ end

void gemv_3_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    //@ guided
    // TODO: ceil(M / kRowsPerBlock) blocks of kThreads threads of gemv_float4_kernel when
    //       K % 4 == 0, of gemv_scalar_kernel otherwise; then WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)A, (void)x, (void)y, (void)M, (void)K, (void)stream;
}

}   // namespace WORKBOOK_TRACK
