// Chapter 6, stage 4: y = A x, groups of G lanes per row (several rows per warp).          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/06_gemv/stages.cuh; the lesson is chapters/06_gemv/README.md.
// Grade it with `make check-chapter 6`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=6 STAGE=4` when stuck.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// Group width G (a power of two <= 32); kFloat4: K % 4 == 0, 16-byte loads, else scalar loads.
template <int G, bool kFloat4>
__global__ void gemv_subwarp_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                    std::int64_t M, std::int64_t K)
{
    // TODO: row = (blockIdx.x * kThreads + threadIdx.x) / G, lane = threadIdx.x % G. If row < M,
    //       the group's G lanes stride by G over the row (float4s if kFloat4, scalars otherwise:
    //       `if constexpr`). Then sum = wb::warp_reduce_sum<G>(sum), called by EVERY lane (no
    //       early return: the shuffles need the whole warp), and lane 0 of the group writes y[row].
}

template <int G>
void launch(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    // TODO: ceil(M * G / kThreads) blocks of kThreads threads of gemv_subwarp_kernel<G, K % 4 == 0>
    //       (two launches behind an if: the template argument must be a compile-time constant).
    (void)A, (void)x, (void)y, (void)M, (void)K, (void)stream;
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which a group of lanes narrower than a warp owns a row, so that short rows still keep every lane
//       busy, several rows per warp.
//@ end

void gemv_4_subwarp(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    //@ guided
    // TODO: choose G, the smallest power of two with 4 G >= K (1, 2, 4, 8, 16, at most 32), and
    //       call launch<G>(...).
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)A, (void)x, (void)y, (void)M, (void)K, (void)stream;
}

}   // namespace WORKBOOK_TRACK
