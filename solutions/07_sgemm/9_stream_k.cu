// Chapter 7, stage 9: an FMA order and copy placement chosen by measurement, the ragged K step first,
// stream-K scheduling for the last wave, and a tile shape chosen by measurement. (reference solution)
//
// Why it is faster than stage 8 (each piece measured in chapters/07_sgemm/README.md):
// - The FMAs of one k step run in 2 x 2 blocks (two A values times two B values, cuBLAS's order), and
//   the copies of the next stage's tiles are issued among the FMAs (those of A before k step 2 of 16,
//   those of B before step 6) instead of all before the first FMA. Neither helps alone; together,
//   with the schedule `ptxas` makes of them, stage 9's kernel is 3% faster at 4096^3 on an H200.
// - The ragged K step (when 16 does not divide K) is the first one, not the last: step s covers
//   k = s * 16 - shift .. + 15, and only step 0 has k < 0 to zero-fill. The loads inside the main loop
//   then carry no test and exist in one copy.
// - Stream-K. One block per tile leaves SMs idle in the last wave: 288 tiles of a 3072^3 product on
//   132 SMs are 2.18 waves, so the GPU runs 3 waves of time, the last 82% idle. Here the whole waves
//   keep one block per tile (a first kernel), and the K steps of the tiles left over are cut into one
//   equal share per block slot (a second kernel, one wave): every block of it ends at the same time.
//   A share that covers only part of a tile writes its partial sums to a workspace; a third kernel
//   adds the partial sums of each split tile in a fixed order (the result is the same at every run)
//   and applies alpha and beta. The schedule is chapters/07_sgemm/stream_k.hpp.
// - The tile shape is a template parameter, and `make tune-chapter 7` times 15 shapes of this very
//   file (and two other placements of the copies) on your GPU (chapters/07_sgemm/tune/). On an H100
//   and an H200 the fastest is stage 8's: 128 x 256, 8 warps of 64 x 64, one block per SM. Two
//   blocks of 128 x 128 per SM, whose barriers overlap, lose 4-5% at 4096^3 and 8192^3 on the H100:
//   each copies its A tile for 128 columns instead of 256.
// Edges: rows of A and columns of B past the matrix are clamped (computed, never stored), and
// N % 4 != 0 takes 4-byte copies of B, as in stage 8.
#include "07_sgemm/epilogue.cuh"
#include "07_sgemm/stages.cuh"
#include "07_sgemm/stream_k.hpp"
#include "common/primitives.cuh"

#include <cuda_pipeline.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace WORKBOOK_TRACK {

namespace {

/// The tile shape. Threads = (BM / WM) * (BN / WN) warps of 32.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int BLOCKS_PER_SM_,
          int COPY_A_AT_ = 2, int COPY_B_AT_ = 6>
struct TileConfig {
    static constexpr int BM = BM_, BN = BN_, BK = BK_;    // block tile and K step
    static constexpr int WM = WM_, WN = WN_;              // warp tile
    static constexpr int TM = TM_, TN = TN_;              // thread tile: (TM / 4) x (TN / 4) blocks of 4 x 4
    static constexpr int STAGES = STAGES_;                // shared-memory buffers in the pipeline
    static constexpr int kBlocksPerSm = BLOCKS_PER_SM_;   // asked of the compiler: registers <= 65536 / that
    static constexpr int kCopyAAt = COPY_A_AT_;           // the k step (0 .. BK - 1) before whose FMAs the
    static constexpr int kCopyBAt = COPY_B_AT_;           // next stage's copies of A / B go (-1: before all)
    static constexpr int kLanesN = WN / TN, kLanesM = WM / TM;
    static constexpr int kWarpsN = BN / WN;
    static constexpr int kThreads = (BM / WM) * kWarpsN * 32;
    static constexpr int kLdA = BM + 4;   // As[k][m] row: +4 floats keep the transposing copies conflict-free
    static constexpr int kLdB = BN + 4;   // Bs[k][n] row
    static constexpr int kStageFloats = BK * kLdA + BK * kLdB;
    static constexpr int kSmemBytes = STAGES * kStageFloats * static_cast<int>(sizeof(float));
    static constexpr int kLoadsA = BM * BK / kThreads;        // 4-byte copies of A per thread per K step
    static constexpr int kLoadsB4 = BK * BN / 4 / kThreads;   // 16-byte copies of B per thread
    static constexpr int kLoadsB1 = BK * BN / kThreads;       // 4-byte copies of B (N % 4 != 0)
    static constexpr int kTileFloats = BM * BN;               // one tile of partial sums
    static_assert(kLanesM * kLanesN == 32, "a warp tile is 32 lanes");
    static_assert(kCopyAAt >= -1 && kCopyAAt < BK && kCopyBAt >= -1 && kCopyBAt < BK, "copies inside a K step");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 blocks");
    static_assert(kThreads % BK == 0 && BM * BK % kThreads == 0, "A tile copies divide evenly");
    static_assert(BK * BN / 4 % kThreads == 0 && kThreads % (BN / 4) == 0, "B tile copies divide evenly");
};

// 128 x 256 tiles, 8 warps of 64 x 64, 16 x 8 outputs per thread (128 accumulators, up to 255
// registers), 3 stages of 24.5 KiB: one block per SM; the copies of A before k step 2, of B before 6. When `make tune-chapter 7` has measured another
// shape as faster on the GPU of your machine, the build puts that shape in the header included here.
#if __has_include("07_sgemm_tuned.hpp")
#include "07_sgemm_tuned.hpp"
#endif
#ifndef WORKBOOK_CH07_TILE
#define WORKBOOK_CH07_TILE 128, 256, 16, 64, 64, 16, 8, 3, 1, 2, 6
#endif
using Tile = TileConfig<WORKBOOK_CH07_TILE>;

/// Where this thread's outputs sit in the tile: rows row0 + (i / 4) * kLanesM * 4 + i % 4 for
/// i < TM, columns col0 + (j / 4) * kLanesN * 4 + j % 4 for j < TN (stage 8's warp tiling).
template <class Cfg>
struct ThreadPlace {
    int row0, col0;
    __device__ ThreadPlace()
    {
        const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        row0 = (warp / Cfg::kWarpsN) * Cfg::WM + (lane / Cfg::kLanesN) * 4;
        col0 = (warp % Cfg::kWarpsN) * Cfg::WN + (lane % Cfg::kLanesN) * 4;
    }
    __device__ static int row(int i) { return (i / 4) * Cfg::kLanesM * 4 + i % 4; }
    __device__ static int col(int j) { return (j / 4) * Cfg::kLanesN * 4 + j % 4; }
};

/// Four FMAs: rows 2 ip and 2 ip + 1 of the thread tile times columns 2 jp and 2 jp + 1.
template <int TM, int TN>
__device__ __forceinline__ void fma_2x2(float (&acc)[TM][TN], const float (&a)[TM], const float (&b)[TN], int ip,
                                        int jp)
{
    acc[2 * ip][2 * jp] = fmaf(a[2 * ip], b[2 * jp], acc[2 * ip][2 * jp]);
    acc[2 * ip][2 * jp + 1] = fmaf(a[2 * ip], b[2 * jp + 1], acc[2 * ip][2 * jp + 1]);
    acc[2 * ip + 1][2 * jp] = fmaf(a[2 * ip + 1], b[2 * jp], acc[2 * ip + 1][2 * jp]);
    acc[2 * ip + 1][2 * jp + 1] = fmaf(a[2 * ip + 1], b[2 * jp + 1], acc[2 * ip + 1][2 * jp + 1]);
}

/// One K step's outer product, 16 x 8 FMAs, in 2 x 2 blocks: for each pair of B values, down the
/// pairs of A values, every other pair of B back up (the order of cuBLAS's FP32 kernel in its SASS).
/// The two values of a pair sit in an even and an odd register (a float4 load fills 4 aligned
/// registers), and the four FMAs of a block read each of the four values twice: cuBLAS's SASS marks
/// them for the operand reuse cache. `ptxas` schedules the FMAs its own way, so this order is a hint
/// whose worth only a measurement shows (chapters/07_sgemm/README.md).
template <int TM, int TN>
__device__ __forceinline__ void outer_product_2x2(float (&acc)[TM][TN], const float (&a)[TM], const float (&b)[TN])
{
#pragma unroll
    for (int jp = 0; jp < TN / 2; ++jp) {
#pragma unroll
        for (int step = 0; step < TM / 2; ++step) fma_2x2(acc, a, b, jp % 2 == 0 ? step : TM / 2 - 1 - step, jp);
    }
}

/// acc = the sum over K steps [step_begin, step_end) of tile (m0, n0): stage 8's pipeline. Every
/// thread of the block calls it with the same arguments.
template <class Cfg, bool kVecB>
__device__ __forceinline__ void accumulate_steps(float (&acc)[Cfg::TM][Cfg::TN], float* smem, const ch07::GemmArgs& g,
                                                 int m0, int n0, int step_begin, int step_end)
{
    constexpr int BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN;
    constexpr int kThreads = Cfg::kThreads, kLdA = Cfg::kLdA, kLdB = Cfg::kLdB, STAGES = Cfg::STAGES;
    const int M = g.M, N = g.N, K = g.K, t = threadIdx.x;
    const ThreadPlace<Cfg> place;

    // A: 8 consecutive threads copy one row's 32 contiguous bytes and store them down a column of As
    // (the transpose); rows past M repeat row M - 1. B: 16-byte chunks when N % 4 == 0.
    const int a_k = t % BK;
    const float* a_block = g.A + static_cast<std::int64_t>(m0) * K + a_k;
    int a_offset[Cfg::kLoadsA];
#pragma unroll
    for (int i = 0; i < Cfg::kLoadsA; ++i) a_offset[i] = min((t + i * kThreads) / BK, M - 1 - m0) * K;
    constexpr int kChunksPerRow = BN / 4;
    constexpr int kRowsPerPass4 = kThreads / kChunksPerRow;
    const int b_k4 = t / kChunksPerRow;
    const int b_col4 = min(n0 + (t % kChunksPerRow) * 4, N - 4);   // used only when N % 4 == 0

    auto copy_a = [&](int stage, int k0, auto zero_fill) {
        constexpr bool kZeroFill = decltype(zero_fill)::value;
        float* as = smem + stage * Cfg::kStageFloats;
#pragma unroll
        for (int i = 0; i < Cfg::kLoadsA; ++i) {
            const int m = (t + i * kThreads) / BK;
            const bool inside = k0 + a_k >= 0;
            __pipeline_memcpy_async(as + a_k * kLdA + m, kZeroFill && !inside ? g.A : a_block + k0 + a_offset[i], 4,
                                    kZeroFill && !inside ? 4 : 0);
        }
    };
    auto copy_b = [&](int stage, int k0, auto zero_fill) {
        constexpr bool kZeroFill = decltype(zero_fill)::value;
        float* bs = smem + stage * Cfg::kStageFloats + BK * kLdA;
        if constexpr (kVecB) {
            const float* b_tile = g.B + static_cast<std::int64_t>(k0 + b_k4) * N + b_col4;
#pragma unroll
            for (int i = 0; i < Cfg::kLoadsB4; ++i) {
                const int k = b_k4 + i * kRowsPerPass4;
                const bool inside = k0 + k >= 0;
                __pipeline_memcpy_async(bs + k * kLdB + (t % kChunksPerRow) * 4,
                                        kZeroFill && !inside ? g.B : b_tile + i * kRowsPerPass4 * N, 16,
                                        kZeroFill && !inside ? 16 : 0);
            }
        } else {
#pragma unroll
            for (int i = 0; i < Cfg::kLoadsB1; ++i) {
                const int e = t + i * kThreads, k = e / BN, n = e % BN;
                const bool inside = k0 + k >= 0;
                const float* src = g.B + static_cast<std::int64_t>(k0 + k) * N + min(n0 + n, N - 1);
                __pipeline_memcpy_async(bs + k * kLdB + n, kZeroFill && !inside ? g.B : src, 4,
                                        kZeroFill && !inside ? 4 : 0);
            }
        }
    };
    auto load_tile = [&](int stage, int k0, auto zero_fill) {
        copy_a(stage, k0, zero_fill);
        copy_b(stage, k0, zero_fill);
    };
    // When BK does not divide K, the ragged K step is the *first* one: step s covers
    // k = s * BK - shift .. + BK - 1, and the k < 0 of step 0 are zero-filled. Every later step is
    // whole, so the loads inside the main loop carry no test at all; only the pipeline's prologue may
    // meet step 0. (A ragged last step would need a test, or a second copy of the loads, in the loop:
    // measured, that costs about 6% on an H100.)
    const int shift = (BK - K % BK) % BK;
    auto load = [&](int stage, int step) { load_tile(stage, step * BK - shift, std::false_type{}); };
    auto load_first = [&](int stage, int step) {
        if (step == 0 && shift != 0)
            load_tile(stage, -shift, std::true_type{});
        else
            load(stage, step);
    };
    auto compute = [&](int stage, auto&& before_k_step) {
        const float* as = smem + stage * Cfg::kStageFloats;
        const float* bs = as + BK * kLdA;
        alignas(16) float a_frag[2][TM];
        alignas(16) float b_frag[2][TN];
        auto load_frags = [&](int buffer, int k) {
#pragma unroll
            for (int s = 0; s < TM / 4; ++s) {
                *reinterpret_cast<float4*>(&a_frag[buffer][s * 4]) =
                    *reinterpret_cast<const float4*>(as + k * kLdA + place.row0 + s * Cfg::kLanesM * 4);
            }
#pragma unroll
            for (int q = 0; q < TN / 4; ++q) {
                *reinterpret_cast<float4*>(&b_frag[buffer][q * 4]) =
                    *reinterpret_cast<const float4*>(bs + k * kLdB + place.col0 + q * Cfg::kLanesN * 4);
            }
        };
        before_k_step(-1);
        load_frags(0, 0);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k + 1 < BK) load_frags((k + 1) % 2, k + 1);   // in flight while the FMAs below run
            before_k_step(k);                                 // resolved at compile time: k is unrolled
            outer_product_2x2(acc, a_frag[k % 2], b_frag[k % 2]);
        }
    };

#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
    }
    const int steps = step_end - step_begin;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < steps) load_first(s, step_begin + s);
        __pipeline_commit();
    }
    int read_stage = 0, write_stage = STAGES - 1;
    // The next stage's copies go among this step's FMAs, where Cfg places them (the buffer they fill
    // was last read in the previous step, which the barrier above has closed); the group is committed
    // once both are issued. The 4-byte copies of B (N % 4 != 0) need 16 addresses a thread: placed among
    // the FMAs they make ptxas spill more registers (104 bytes against 64 on sm_90), so they go first.
    constexpr int kCopyAAt = kVecB ? Cfg::kCopyAAt : -1, kCopyBAt = kVecB ? Cfg::kCopyBAt : -1;
    constexpr int kCommitAt = kCopyAAt > kCopyBAt ? kCopyAAt : kCopyBAt;
    for (int step = 0; step < steps; ++step) {
        __pipeline_wait_prior(STAGES - 2);
        __syncthreads();
        const bool refill = step + STAGES - 1 < steps;
        const int k0_next = (step_begin + step + STAGES - 1) * BK - shift;
        compute(read_stage, [&](int k) {
            if (k == kCopyAAt && refill) copy_a(write_stage, k0_next, std::false_type{});
            if (k == kCopyBAt && refill) copy_b(write_stage, k0_next, std::false_type{});
            if (k == kCommitAt) __pipeline_commit();
        });
        read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
    }
}

/// C tile (m0, n0) = alpha * acc + beta * C.
template <class Cfg, bool kVecB>
__device__ __forceinline__ void store_tile(const float (&acc)[Cfg::TM][Cfg::TN], const ch07::GemmArgs& g, int m0,
                                           int n0)
{
    const ThreadPlace<Cfg> place;
#pragma unroll
    for (int i = 0; i < Cfg::TM; ++i) {
        const int row = m0 + place.row0 + ThreadPlace<Cfg>::row(i);
        if (row >= g.M) continue;
        float* c_row = g.C + static_cast<std::int64_t>(row) * g.N;
#pragma unroll
        for (int j = 0; j < Cfg::TN; j += 4) {
            const int col = n0 + place.col0 + ThreadPlace<Cfg>::col(j);
            const float4 r = make_float4(g.alpha * acc[i][j], g.alpha * acc[i][j + 1], g.alpha * acc[i][j + 2],
                                         g.alpha * acc[i][j + 3]);
            ch07::store_c4<kVecB>(c_row, col, g.N, r, g.beta);
        }
    }
}

/// The partial sums of one tile, in the threads' own order: float4 number q of thread t at
/// q * kThreads + t, so that a warp writes and reads 512 contiguous bytes at a time.
template <class Cfg>
__device__ __forceinline__ std::int64_t partial_index(std::int64_t slot)
{
    return slot * (Cfg::kTileFloats / 4) + threadIdx.x;
}

template <class Cfg>
__device__ __forceinline__ void save_partial(const float (&acc)[Cfg::TM][Cfg::TN], float* workspace, std::int64_t slot)
{
    float4* out = reinterpret_cast<float4*>(workspace) + partial_index<Cfg>(slot);
#pragma unroll
    for (int i = 0; i < Cfg::TM; ++i) {
#pragma unroll
        for (int j = 0; j < Cfg::TN; j += 4) {
            out[(i * Cfg::TN + j) / 4 * Cfg::kThreads] =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
        }
    }
}

template <class Cfg>
__device__ __forceinline__ void add_partial(float (&acc)[Cfg::TM][Cfg::TN], const float* workspace, std::int64_t slot)
{
    const float4* in = reinterpret_cast<const float4*>(workspace) + partial_index<Cfg>(slot);
#pragma unroll
    for (int i = 0; i < Cfg::TM; ++i) {
#pragma unroll
        for (int j = 0; j < Cfg::TN; j += 4) {
            const float4 p = in[(i * Cfg::TN + j) / 4 * Cfg::kThreads];
            acc[i][j] += p.x, acc[i][j + 1] += p.y, acc[i][j + 2] += p.z, acc[i][j + 3] += p.w;
        }
    }
}

/// Kernel 1, data-parallel: block b computes whole tile b (tiles 0 .. whole_tiles - 1), as in stage 8.
template <class Cfg, bool kVecB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kBlocksPerSm)
    sgemm_whole_tiles_kernel(ch07::GemmArgs g, ch07::StreamK plan)
{
    extern __shared__ __align__(16) float smem[];
    float acc[Cfg::TM][Cfg::TN];
    const ch07::TileOrigin at = plan.origin(static_cast<int>(blockIdx.x));
    accumulate_steps<Cfg, kVecB>(acc, smem, g, at.row * Cfg::BM, at.col * Cfg::BN, 0, plan.steps_per_tile);
    store_tile<Cfg, kVecB>(acc, g, at.row * Cfg::BM, at.col * Cfg::BN);
}

/// Kernel 2, stream-K: block b computes share b of the split tiles' K steps, [first, last), numbered
/// tile after tile: one segment per tile it touches. A whole tile is stored; part of a tile goes to
/// the workspace, in the slot of the share's first or last segment.
template <class Cfg, bool kVecB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kBlocksPerSm)
    sgemm_shares_kernel(ch07::GemmArgs g, ch07::StreamK plan, float* __restrict__ workspace)
{
    extern __shared__ __align__(16) float smem[];
    float acc[Cfg::TM][Cfg::TN];
    const int share = static_cast<int>(blockIdx.x);
    const std::int64_t first = plan.share_begin(share), last = plan.share_begin(share + 1);
    for (std::int64_t step = first; step < last;) {
        const int tile = plan.whole_tiles + static_cast<int>(step / plan.steps_per_tile);
        const int begin = static_cast<int>(step % plan.steps_per_tile);
        const int end =
            last - step < plan.steps_per_tile - begin ? begin + static_cast<int>(last - step) : plan.steps_per_tile;
        const ch07::TileOrigin at = plan.origin(tile);
        if (step != first) __syncthreads();   // everyone is done with the buffers before they are refilled
        accumulate_steps<Cfg, kVecB>(acc, smem, g, at.row * Cfg::BM, at.col * Cfg::BN, begin, end);
        if (begin == 0 && end == plan.steps_per_tile) {
            store_tile<Cfg, kVecB>(acc, g, at.row * Cfg::BM, at.col * Cfg::BN);   // the whole tile is ours
        } else {
            save_partial<Cfg>(acc, workspace, plan.partial_slot(share, step == first));
        }
        step += end - begin;
    }
}

/// Kernel 3: block s finishes split tile s: adds its partial sums in the order of the shares that
/// computed them (the same order every run), then C = alpha * sum + beta * C.
template <class Cfg, bool kVecB>
__global__ void __launch_bounds__(Cfg::kThreads)
    sgemm_stream_k_fixup_kernel(ch07::GemmArgs g, ch07::StreamK plan, const float* __restrict__ workspace)
{
    const int split = static_cast<int>(blockIdx.x);
    const std::int64_t tile_begin = static_cast<std::int64_t>(split) * plan.steps_per_tile;
    const std::int64_t tile_end = tile_begin + plan.steps_per_tile;
    int share = plan.share_of_step(tile_begin);
    if (plan.share_begin(share) <= tile_begin && plan.share_begin(share + 1) >= tile_end) return;   // one share
    float acc[Cfg::TM][Cfg::TN] = {};
    for (; share < plan.shares && plan.share_begin(share) < tile_end; ++share) {
        // The tile is the first segment of a share that starts inside it, the last of the one before.
        add_partial<Cfg>(acc, workspace, plan.partial_slot(share, plan.share_begin(share) >= tile_begin));
    }
    const ch07::TileOrigin at = plan.origin(plan.whole_tiles + split);
    store_tile<Cfg, kVecB>(acc, g, at.row * Cfg::BM, at.col * Cfg::BN);
}

/// Blocks of the shares kernel the whole GPU holds at once: one wave. Both big kernels are asked for
/// their shared memory here (more than 48 KB must be asked for).
template <class Cfg, bool kVecB>
int resident_slots()
{
    static const int slots = [] {
        const auto whole = sgemm_whole_tiles_kernel<Cfg, kVecB>;
        const auto shares = sgemm_shares_kernel<Cfg, kVecB>;
        WB_CUDA_CHECK(cudaFuncSetAttribute(whole, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes));
        WB_CUDA_CHECK(cudaFuncSetAttribute(shares, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes));
        return std::max(std::min(wb::resident_blocks(whole, Cfg::kThreads, Cfg::kSmemBytes),
                                 wb::resident_blocks(shares, Cfg::kThreads, Cfg::kSmemBytes)),
                        1);
    }();
    return slots;
}

/// The workspace of the partial sums, two tiles per share: allocated by the first call that splits
/// tiles, for a whole wave of shares, and kept for the later calls (every plan of this GPU fits in
/// it). A cudaMallocAsync per call would be stream-ordered too, but the memory pool returns its
/// memory to the driver at every synchronisation, and mapping 35 MB again costs more than a 1024^3
/// product. One workspace means one product at a time: calls on two streams at once would share it.
/// The graders make one call at a time; a library takes the workspace from its caller instead (as
/// cublasSetWorkspace does).
template <class Cfg>
float* workspace_of_wave()
{
    static float* const workspace = [] {
        const int slots = std::max(resident_slots<Cfg, true>(), resident_slots<Cfg, false>());
        float* buffer = nullptr;
        const std::size_t bytes = 2 * static_cast<std::size_t>(slots) * Cfg::kTileFloats * sizeof(float);
        WB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&buffer), bytes));
        return buffer;
    }();
    return workspace;
}

template <class Cfg, bool kVecB>
void launch(const ch07::GemmArgs& g, cudaStream_t stream)
{
    const ch07::StreamK plan =
        ch07::StreamK::make(g.M, g.N, g.K, Cfg::BM, Cfg::BN, Cfg::BK, resident_slots<Cfg, kVecB>());
    if (plan.whole_tiles > 0) {
        sgemm_whole_tiles_kernel<Cfg, kVecB><<<plan.whole_tiles, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(g, plan);
        WB_CHECK_LAUNCH();
    }
    if (plan.split_tiles > 0) {
        float* workspace = workspace_of_wave<Cfg>();
        sgemm_shares_kernel<Cfg, kVecB><<<plan.shares, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(g, plan, workspace);
        WB_CHECK_LAUNCH();
        sgemm_stream_k_fixup_kernel<Cfg, kVecB><<<plan.split_tiles, Cfg::kThreads, 0, stream>>>(g, plan, workspace);
        WB_CHECK_LAUNCH();
    }
}

}   // namespace

void sgemm_9_stream_k(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                      cudaStream_t stream)
{
    const ch07::GemmArgs g{M, N, K, alpha, A, B, beta, C};
    if (N % 4 == 0)
        launch<Tile, true>(g, stream);
    else
        launch<Tile, false>(g, stream);
}

}   // namespace WORKBOOK_TRACK
