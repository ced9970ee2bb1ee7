// Chapter 6, stage 6: y = A x, the kernel chosen by K.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/06_gemv/stages.cuh; the lesson is chapters/06_gemv/README.md.
// Grade it with `make check-chapter 6`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=6 STAGE=6` when stuck.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// Groups of G lanes; each group owns R rows (the warp's rows are interleaved so that each of its
/// R loads covers 32 / G consecutive rows). K % 4 == 0 only.
template <int G, int R>
__global__ void __launch_bounds__(kThreads) gemv_rows_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                                             float* __restrict__ y, std::int64_t M, std::int64_t K)
{
    // TODO: a warp owns (32 / G) * R consecutive rows: group g of the warp takes rows
    //       first_row + j * (32 / G), j = 0 .. R - 1. For each float4 k of the row (k = lane,
    //       lane + G, ...): load x4[k] once, then the R float4s of A with __ldcs (rows past M load
    //       zeros), then do the R dot products. At the end, R calls of wb::warp_reduce_sum<G>
    //       (by every lane), and lane 0 of each group writes its R results.
}

/// One block per row. K % 4 == 0 only.
__global__ void __launch_bounds__(kThreads)
    gemv_block_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, std::int64_t K)
{
    // TODO: stage 5's kernel (float4 path only).
}

/// Rows that are not 16-byte aligned (K % 4 != 0): scalar loads, groups of G lanes per row.
template <int G>
__global__ void gemv_scalar_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                   std::int64_t M, std::int64_t K)
{
    // TODO: stage 4's scalar path.
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel for short rows: groups of lanes per row, several rows per warp.
// TODO: a kernel for long rows: a block per row.
// TODO: a scalar fallback for rows that vector loads cannot read; the launcher picks the kernel by the row length.
//@ end

void gemv_6_dispatch(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    //@ guided
    // TODO: K % 4 != 0: gemv_scalar_kernel<G>. Otherwise by v = K / 4: short rows (v <= 32) ->
    //       gemv_rows_kernel<G, 4> with G = the smallest power of two >= v, at most 16; medium rows
    //       (v < 1024, K < 4096) -> gemv_rows_kernel<32, 1>, a warp per row; long rows ->
    //       gemv_block_kernel, M blocks. WB_CHECK_LAUNCH() after each launch.
    //@ end
    //@ outline
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)A, (void)x, (void)y, (void)M, (void)K, (void)stream;
}

}   // namespace WORKBOOK_TRACK
