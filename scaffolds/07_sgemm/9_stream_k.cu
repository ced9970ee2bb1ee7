// Chapter 7, stage 9: an FMA order the register file likes, the ragged K step first, and stream-K
// scheduling for the last wave.          (your exercise)
//
// Write the kernels and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md; the stream-K schedule
// (which block computes which tiles and K steps) is ready in chapters/07_sgemm/stream_k.hpp.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=9` when stuck.
#include "07_sgemm/epilogue.cuh"
#include "07_sgemm/stages.cuh"
#include "07_sgemm/stream_k.hpp"
#include "common/primitives.cuh"

#include <cuda_pipeline.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace WORKBOOK_TRACK {

//@ guided
namespace {

// The tile: stage 8's, 128 x 256, K step 16, 8 warps of 64 x 64, 16 x 8 outputs per thread, 3 stages,
// one block per SM (__launch_bounds__(256, 1): at most 255 registers a thread).
constexpr int BM = 128, BN = 256, BK = 16, WM = 64, WN = 64, TM = 16, TN = 8, STAGES = 3;
constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
constexpr int kLdA = BM + 4, kLdB = BN + 4;   // As[k][m] and Bs[k][n] rows, padded as in stage 8
constexpr int kStageFloats = BK * kLdA + BK * kLdB;
constexpr int kSmemBytes = STAGES * kStageFloats * static_cast<int>(sizeof(float));

/// acc = the sum over K steps [step_begin, step_end) of the tile at (m0, n0).
template <bool kVecB>
__device__ void accumulate_steps(float (&acc)[TM][TN], float* smem, const ch07::GemmArgs& g, int m0, int n0,
                                 int step_begin, int step_end)
{
    // TODO: stage 8's cp.async pipeline over steps step_begin .. step_end - 1 (acc zeroed first).
    // TODO: the ragged K step first: shift = (BK - K % BK) % BK, step s loads k = s * BK - shift ..
    //       + BK - 1; only step 0 (met in the prologue alone) zero-fills its k < 0.
    // TODO: the outer product of a k step in 2 x 2 blocks (two A values times two B values), and the
    //       next stage's copies issued among the FMAs (A before k step 2, B before step 6).
}

/// C tile (m0, n0) = alpha * acc + beta * C (ch07::store_c4<kVecB>, as in stage 8).
template <bool kVecB>
__device__ void store_tile(const float (&acc)[TM][TN], const ch07::GemmArgs& g, int m0, int n0)
{
    // TODO: the thread's rows and columns as in stage 8's warp tiling.
}

template <bool kVecB>
__global__ void __launch_bounds__(kThreads, 1) sgemm_whole_tiles_kernel(ch07::GemmArgs g, ch07::StreamK plan)
{
    // TODO: tile plan.origin(blockIdx.x): all plan.steps_per_tile steps, then store_tile.
}

template <bool kVecB>
__global__ void __launch_bounds__(kThreads, 1)
    sgemm_shares_kernel(ch07::GemmArgs g, ch07::StreamK plan, float* __restrict__ workspace)
{
    // TODO: split K steps [plan.share_begin(b), plan.share_begin(b + 1)) with b = blockIdx.x, tile
    //       after tile (tile plan.whole_tiles + step / steps_per_tile): a segment that is a whole tile
    //       is stored; part of a tile is written to workspace slot plan.partial_slot(b, first segment?),
    //       kThreads float4 per row of the slot. __syncthreads() between segments.
}

template <bool kVecB>
__global__ void __launch_bounds__(kThreads)
    sgemm_stream_k_fixup_kernel(ch07::GemmArgs g, ch07::StreamK plan, const float* __restrict__ workspace)
{
    // TODO: split tile s = blockIdx.x: return if one share holds it all; otherwise add the partial
    //       sums of the shares that touch it, in share order, then store_tile.
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel of whole tiles, stage 8's pipeline with an FMA order that spares the register file, and the partial K
//       step handled where the main loop never meets it.
// TODO: a kernel of one wave of blocks, each taking an equal share of the K steps of the tiles left over after the
//       whole waves, so that no SM idles at the end.
// TODO: a kernel that adds the partial sums of each tile that was split between blocks, in a fixed order.
//@ end

void sgemm_9_stream_k(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                      cudaStream_t stream)
{
    //@ guided
    // TODO: slots = wb::resident_blocks(kernel, kThreads, kSmemBytes), asked once (after
    //       cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    //       plan = ch07::StreamK::make(M, N, K, BM, BN, BK, slots). Launch the whole-tiles kernel
    //       (plan.whole_tiles blocks), then, when plan.split_tiles > 0, the shares kernel (plan.shares
    //       blocks) and the fixup kernel (plan.split_tiles blocks), all on `stream`, each checked with
    //       WB_CHECK_LAUNCH(). The workspace (2 * slots tiles of BM * BN floats) is allocated once and
    //       kept. N % 4 == 0 selects kVecB.
    //@ end
    //@ outline
    // TODO: build the schedule with the chapter's stream-K helper, launch your kernels on `stream`, and
    //       check each launch with WB_CHECK_LAUNCH.
    //@ end
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
