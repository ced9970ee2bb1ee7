// Chapter 7, stage 8: software pipelining with cp.async, register double buffering, 16 x 8 thread tiles.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=8` when stuck.
#include "07_sgemm/epilogue.cuh"
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

#include <cuda_pipeline.h>

#include <algorithm>
#include <type_traits>

namespace WORKBOOK_TRACK {

//@ guided
namespace {

/// The tile shape of one kernel instance. Threads = (BM / WM) * (BN / WN) warps of 32.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_>
struct TileConfig {
    static constexpr int BM = BM_, BN = BN_, BK = BK_;   // block tile and K step
    static constexpr int WM = WM_, WN = WN_;             // warp tile
    static constexpr int TM = TM_, TN = TN_;             // thread tile: (TM / 4) x (TN / 4) blocks of 4 x 4
    static constexpr int STAGES = STAGES_;               // shared-memory buffers in the pipeline
    static constexpr int kLanesN = WN / TN;              // lanes across a warp tile
    static constexpr int kLanesM = WM / TM;              // lanes down it
    static constexpr int kWarpsN = BN / WN;
    static constexpr int kThreads = (BM / WM) * kWarpsN * 32;
    static constexpr int kLdA = BM + 4;   // As[k][m] row: +4 floats keep the transposing copies conflict-free
    static constexpr int kLdB = BN + 4;   // Bs[k][n] row
    static constexpr int kStageFloats = BK * kLdA + BK * kLdB;
    static constexpr int kLoadsA = BM * BK / kThreads;        // 4-byte copies of A per thread per tile
    static constexpr int kLoadsB4 = BK * BN / 4 / kThreads;   // 16-byte copies of B per thread per tile
    static constexpr int kLoadsB1 = BK * BN / kThreads;       // 4-byte copies of B (unaligned N)
    // Thread tiles of 64 outputs or fewer fit in 128 registers: ask for two or more blocks per SM
    // (65536 registers / (threads * 128)); larger tiles need up to 255 registers and get what fits.
    static constexpr int kMinBlocks = TM * TN <= 64 && kThreads <= 256 ? 65536 / (kThreads * 128) : 1;
    static_assert(kLanesM * kLanesN == 32, "a warp tile is 32 lanes");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 blocks");
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile");
    static_assert(kThreads % BK == 0 && BM * BK % kThreads == 0, "A tile copies divide evenly");
    static_assert(BK * BN / 4 % kThreads == 0 && kThreads % (BN / 4) == 0, "B tile copies divide evenly");
    static_assert(STAGES >= 2, "a pipeline needs two buffers at least");
};

// ---- cp.async, through the CUDA pipeline primitives of <cuda_pipeline.h> ----
// Each of these is one PTX instruction on compute capability 8.0 and newer (a plain copy before):
//   __pipeline_memcpy_async(dst_shared, src_global, bytes, zfill = 0)   cp.async (LDGSTS): bytes = 4, 8
//       or 16, both pointers aligned to it; the last zfill bytes of dst are zeroed instead of read
//   __pipeline_commit()          cp.async.commit_group: closes this thread's group of copies
//   __pipeline_wait_prior(n)     cp.async.wait_group n: at most n of its groups still in flight

template <bool kZeroFill>
__device__ __forceinline__ void copy4(float* smem, const float* gmem, bool inside)
{
    // TODO: one 4-byte __pipeline_memcpy_async; when kZeroFill and !inside, zero-fill all 4 bytes
    //       (nothing is read from gmem then).
}

template <bool kZeroFill>
__device__ __forceinline__ void copy16(float* smem, const float* gmem, bool inside)
{
    // TODO: as copy4 with 16 bytes (16-byte copies bypass L1: cp.async.cg).
}

__device__ __forceinline__ void copy_commit()
{
    // TODO: __pipeline_commit().
}

/// Waits until at most @p kPending of this thread's committed copy groups are still in flight.
template <int kPending>
__device__ __forceinline__ void copy_wait()
{
    // TODO: __pipeline_wait_prior(kPending).
}

// ---- the kernel -------------------------------------------------------------------------------

/// @tparam kVecB  N % 4 == 0: rows of B and C are 16-byte aligned (16-byte copies, float4 stores)
/// @tparam kAsync cp.async multi-stage pipeline (sm_80+); otherwise a register-staged double buffer
template <class Cfg, bool kVecB, bool kAsync>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    sgemm_pipelined_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                           float beta, float* __restrict__ C, int group_m)
{
    // TODO: extern __shared__ __align__(16) float smem[]; stage s holds As[BK][kLdA] (transposed)
    //       then Bs[BK][kLdB], at smem + s * kStageFloats.
    // TODO: the tile: blockIdx.x walks down group_m tile rows before moving one tile column right
    //       (blocks in flight share tiles of B in L2); m0, n0 from that. warp_m, warp_n, lane_m and
    //       lane_n as in stage 7, with Cfg's WM, WN, kLanesM, kLanesN.
    // TODO: copies of A: element e = t + i * kThreads of the tile is row e / BK, k e % BK: 4-byte
    //       copy4 into As[k][row] (the transpose). Rows past M repeat row M - 1 (min): their results
    //       are never stored. Copies of B: 16-byte chunks (copy16) when kVecB, columns past N repeat
    //       the last valid chunk; 4-byte copies otherwise.
    // TODO: a full K tile (k0 + BK <= K) uses copy<false> (no tests); the last partial one uses
    //       copy<true> with inside = (k < K), so k >= K is zero-filled.
    // TODO: compute(stage): for k in 0..BK-1, float4 fragments of A and B from the stage's buffers
    //       (alignas(16) float arrays), TM x TN FMAs; load the fragments of k + 1 (a second set of registers) before the FMAs
    //       of k.
    // TODO: kAsync: prologue issues tiles 0 .. STAGES - 2, one commit each (empty groups too). Then
    //       per tile: copy_wait<STAGES - 2>(); __syncthreads(); issue tile + STAGES - 1 into the
    //       buffer that tile - 1 used; copy_commit(); compute(tile's buffer).
    //       !kAsync: two buffers; load tile + 1 into registers, compute this tile, store the
    //       registers into the other buffer, __syncthreads().
    // TODO: epilogue as in stage 7 (ch07::store_c4<kVecB>), rows and columns from the lane's
    //       (TM / 4) x (TN / 4) blocks.
}

/// True when this GPU has cp.async (compute capability 8.0 or newer).
bool device_has_cp_async()
{
    // TODO: wb::device_attribute(cudaDevAttrComputeCapabilityMajor) >= 8, asked once: a function-local
    //       static (the idiom of common/primitives.cuh).
    return false;
}

/// The number of SMs of this GPU.
int device_sm_count()
{
    // TODO: wb::device_attribute(cudaDevAttrMultiProcessorCount), asked once (a function-local static).
    return 1;
}

template <class Cfg, bool kVecB, bool kAsync>
void launch_instance(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                     int group_m, cudaStream_t stream)
{
    // TODO: smem_bytes = stages * Cfg::kStageFloats * sizeof(float) (stages = 2 without kAsync); above
    //       48 KB a kernel must be allowed first: cudaFuncSetAttribute(kernel,
    //       cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes), once per instance. One block
    //       per tile of C: ceil(M / BM) * ceil(N / BN) blocks of Cfg::kThreads, smem_bytes of dynamic
    //       shared memory, on `stream`; then WB_CHECK_LAUNCH().
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)group_m, (void)stream;
}

/// One configuration, every variant: aligned or not, cp.async or register staging.
template <class Cfg>
void launch_config(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C, int group_m,
                   bool use_async, cudaStream_t stream)
{
    // TODO: launch_instance<Cfg, N % 4 == 0, use_async> for the four combinations.
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)group_m, (void)use_async,
        (void)stream;
}

// The tile shapes, fastest first on large problems (measured: chapters/07_sgemm/README.md).
// Large: 128 x 256 blocks of 8 warps of 64 x 64, 16 x 8 outputs per thread, one block per SM.
using LargeTile = TileConfig<128, 256, 16, 64, 64, 16, 8, 3>;
// Medium: 128 x 128 blocks of 8 warps of 32 x 64, 8 x 8 outputs per thread, two blocks per SM.
using MediumTile = TileConfig<128, 128, 16, 32, 64, 8, 8, 3>;
// Small: 64 x 64 blocks of 4 warps of 32 x 32, 4 x 8 outputs per thread, for problems too small to
// give every SM a large tile.
using SmallTile = TileConfig<64, 64, 16, 32, 32, 4, 8, 3>;
constexpr int kGroupM = 8;   // tile rows walked by consecutive blocks (L2 reuse of B)

}   // namespace
//@ end
//@ outline
// TODO: a kernel that overlaps the loading of the next tiles with the arithmetic on the current ones: asynchronous
//       copies into a second shared buffer and a second set of registers, so that memory latency hides behind the
//       multiply-adds.
//@ end

void sgemm_8_pipelined(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream)
{
    //@ guided
    // TODO: launch_config<LargeTile> when there are at least 3/4 as many 128 x 256 tiles as SMs, else
    //       <MediumTile> when there are that many 128 x 128 tiles, else <SmallTile>; use_async =
    //       device_has_cp_async(). (Start with LargeTile alone: the grader times 4096^3.)
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
