// Chapter 7, stage 7: warp tiling, each lane owns four 4 x 4 blocks spread over its warp's tile.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=7` when stuck.
#include "07_sgemm/epilogue.cuh"
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 8;
constexpr int kWM = 64;   // a warp's tile: kWM x kWN outputs
constexpr int kWN = 32;
constexpr int kLanesN = 4;                             // lanes across the warp tile (lane % 4) ...
constexpr int kLanesM = 32 / kLanesN;                  // ... and down it (lane / 4)
constexpr int kTM = kWM / kLanesM;                     // 8 outputs per lane down: 2 blocks of 4, 32 rows apart
constexpr int kTN = kWN / kLanesN;                     // 8 across: 2 blocks of 4, 16 columns apart
constexpr int kWarpsN = kBN / kWN;                     // 4
constexpr int kThreads = (kBM / kWM) * kWarpsN * 32;   // 256
constexpr int kPadA = 4;
static_assert(kBM * kBK / 4 == kThreads && kBK * kBN / 4 == kThreads, "one float4 of each tile per thread");

template <bool kVec>
__device__ __forceinline__ float4 load4(const float* row, int col, int limit, bool row_ok)
{
    // TODO: as in stage 6.
    return make_float4(0.f, 0.f, 0.f, 0.f);
}

template <bool kVec>
__global__ void __launch_bounds__(kThreads)
    sgemm_warp_tiling_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                             float beta, float* __restrict__ C)
{
    // TODO: shared tiles, loads, zero fill and epilogue as in stage 6. What changes is who owns what:
    //       warp = t / 32 owns rows warp_m = (warp / kWarpsN) * kWM .. + 63 and columns
    //       warp_n = (warp % kWarpsN) * kWN .. + 31; lane owns lane_m = (lane / kLanesN) * 4 and
    //       lane_n = (lane % kLanesN) * 4 inside it.
    // TODO: per k: a_frag[s * 4 .. + 3] = float4 at As[k][warp_m + s * 32 + lane_m] (s = 0, 1) and
    //       b_frag[q * 4 .. + 3] = float4 at Bs[k][warp_n + q * 16 + lane_n] (q = 0, 1); 64 FMAs.
    //       The fragments are alignas(16) float arrays (float4 stores into them).
    //       (A float4 shared load is served per quarter-warp, 8 lanes x 16 bytes: the 8 lanes of a
    //       phase read 2 consecutive float4 of As and 4 of Bs, so no bank is hit at two addresses.)
    // TODO: output (i, j) of the lane is row warp_m + (i / 4) * 32 + lane_m + i % 4, column
    //       warp_n + (j / 4) * 16 + lane_n + j % 4 (plus the block's m0 and n0).
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel with a level of tiling between the block and the thread: each warp owns a region of the block's tile
//       and each lane a few small squares spread over it, so that the shared loads of a warp hit distinct banks.
//@ end

void sgemm_7_warp_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                         cudaStream_t stream)
{
    //@ guided
    // TODO: as in stage 6: <true> when K % 4 == 0 and N % 4 == 0, <false> otherwise.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
