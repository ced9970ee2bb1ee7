// Catalog, chapter 7, stage 8: the clamp of the rows of A stops one row too late, at row M.
// expect: wrong "memcheck found"
// emulated: crashed "read past the end of an input array"
//
// The reference stage 8 with `min(row, M - m0)` where `min(row, M - 1 - m0)` was meant: the rows past M
// that the cp.async copies of A read (a tile's copies carry no row test, only the K tail is zero-filled)
// should repeat the last row, M - 1; these repeat row M, the first row past the end of A. Its products land
// in rows of C that are never stored, so every number is right. The read is out of bounds all the same
// (on a GPU it faults when A ends at a page boundary): the grader's compute-sanitizer pass, whose arrays
// have no guard bytes, reports it, and the emulator checks the source of every cp.async against the end
// of its array.
#include "07_sgemm/epilogue.cuh"
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

#include <cuda_pipeline.h>

#include <algorithm>
#include <type_traits>

namespace WORKBOOK_TRACK {

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
// __pipeline_memcpy_async(dst, src, bytes, zfill) is one cp.async instruction (LDGSTS in the SASS):
// 4-byte copies become cp.async.ca (cached in L1), 16-byte ones cp.async.cg (L2 only). The last
// `zfill` bytes of the destination are zeroed instead of read, so zfill == bytes reads nothing at
// all: that is how the partial K tile is padded. __pipeline_commit() closes this thread's group of
// copies (cp.async.commit_group); __pipeline_wait_prior(n) waits until at most n of its groups are
// still in flight (cp.async.wait_group n). Before compute capability 8.0 the header turns them into
// plain synchronous copies.

template <bool kZeroFill>
__device__ __forceinline__ void copy4(float* smem, const float* gmem, bool inside)
{
    __pipeline_memcpy_async(smem, gmem, 4, kZeroFill && !inside ? 4 : 0);
}

template <bool kZeroFill>
__device__ __forceinline__ void copy16(float* smem, const float* gmem, bool inside)
{
    __pipeline_memcpy_async(smem, gmem, 16, kZeroFill && !inside ? 16 : 0);
}

__device__ __forceinline__ void copy_commit() { __pipeline_commit(); }

/// Waits until at most @p kPending of this thread's committed copy groups are still in flight.
template <int kPending>
__device__ __forceinline__ void copy_wait()
{
    __pipeline_wait_prior(kPending);
}

// ---- the kernel -------------------------------------------------------------------------------

/// @tparam kVecB  N % 4 == 0: rows of B and C are 16-byte aligned (16-byte copies, float4 stores)
/// @tparam kAsync cp.async multi-stage pipeline (sm_80+); otherwise a register-staged double buffer
template <class Cfg, bool kVecB, bool kAsync>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    sgemm_pipelined_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                           float beta, float* __restrict__ C, int group_m)
{
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN;
    constexpr int kThreads = Cfg::kThreads, kLdA = Cfg::kLdA, kLdB = Cfg::kLdB;
    constexpr int STAGES = kAsync ? Cfg::STAGES : 2;
    extern __shared__ __align__(16) float smem[];   // STAGES x { As[BK][kLdA], Bs[BK][kLdB] }

    // Which tile of C: consecutive blocks walk down a group of group_m tile rows before moving to
    // the next column, so the blocks in flight share their tiles of B (and of A) in L2.
    const int tiles_m = wb::ceil_div(M, BM), tiles_n = wb::ceil_div(N, BN);
    const int per_group = group_m * tiles_n;
    const int group = static_cast<int>(blockIdx.x) / per_group;
    const int first_m = group * group_m;
    const int rows_in_group = min(tiles_m - first_m, group_m);
    const int in_group = static_cast<int>(blockIdx.x) % per_group;
    const int m0 = (first_m + in_group % rows_in_group) * BM;
    const int n0 = (in_group / rows_in_group) * BN;

    const int t = threadIdx.x;
    const int warp = t / 32, lane = t % 32;
    const int warp_m = (warp / Cfg::kWarpsN) * Cfg::WM;
    const int warp_n = (warp % Cfg::kWarpsN) * Cfg::WN;
    const int lane_m = (lane / Cfg::kLanesN) * 4;
    const int lane_n = (lane % Cfg::kLanesN) * 4;

    // Copies of A: element e = t + i * kThreads of the tile is row e / BK, k e % BK, so 8 consecutive
    // threads copy the 32 contiguous bytes of one row (one sector) and store them down a column of
    // As (the transpose). Rows past M repeat row M - 1. Offsets from the block's first row fit in
    // 32 bits (BM * K < 2^31), which halves the registers they take.
    const int a_k = t % BK;
    const float* a_block = A + static_cast<std::int64_t>(m0) * K + a_k;
    int a_offset[Cfg::kLoadsA];
#pragma unroll
    for (int i = 0; i < Cfg::kLoadsA; ++i) a_offset[i] = min((t + i * kThreads) / BK, M - m0) * K;   // BUG: M - m0
    // Copies of B: 16-byte chunks, chunk c = t + i * kThreads is row c / (BN / 4), columns
    // (c % (BN / 4)) * 4 .. + 3 (columns past N repeat the last valid chunk); without alignment, floats.
    constexpr int kChunksPerRow = BN / 4;
    constexpr int kRowsPerPass4 = kThreads / kChunksPerRow;   // B rows one pass of 16-byte copies covers
    const int b_k4 = t / kChunksPerRow;
    const int b_col4 = min(n0 + (t % kChunksPerRow) * 4, N - 4);   // used only when N % 4 == 0 (N >= 4)

    auto load_tile = [&](int stage, int k0, auto zero_fill) {
        constexpr bool kZeroFill = decltype(zero_fill)::value;
        float* as = smem + stage * Cfg::kStageFloats;
        float* bs = as + BK * kLdA;
        const float* a_tile = a_block + k0;
#pragma unroll
        for (int i = 0; i < Cfg::kLoadsA; ++i) {
            const int m = (t + i * kThreads) / BK;
            const bool inside = k0 + a_k < K;   // outside: any valid address will do, nothing is read
            copy4<kZeroFill>(as + a_k * kLdA + m, kZeroFill && !inside ? A : a_tile + a_offset[i], inside);
        }
        if constexpr (kVecB) {
            const float* b_tile = B + static_cast<std::int64_t>(k0 + b_k4) * N + b_col4;
#pragma unroll
            for (int i = 0; i < Cfg::kLoadsB4; ++i) {
                const int k = b_k4 + i * kRowsPerPass4;
                const bool inside = k0 + k < K;
                copy16<kZeroFill>(bs + k * kLdB + (t % kChunksPerRow) * 4,
                                  kZeroFill && !inside ? B : b_tile + i * kRowsPerPass4 * N, inside);
            }
        } else {
#pragma unroll
            for (int i = 0; i < Cfg::kLoadsB1; ++i) {
                const int e = t + i * kThreads, k = e / BN, n = e % BN;
                const bool inside = k0 + k < K;
                const float* src = B + static_cast<std::int64_t>(k0 + k) * N + min(n0 + n, N - 1);
                copy4<kZeroFill>(bs + k * kLdB + n, kZeroFill && !inside ? B : src, inside);
            }
        }
    };
    auto load = [&](int stage, int tile) {
        const int k0 = tile * BK;
        if (k0 + BK <= K) {
            load_tile(stage, k0, std::false_type{});   // a full tile: no bounds tests at all
        } else {
            load_tile(stage, k0, std::true_type{});   // the last, partial tile: k >= K is zero-filled
        }
    };

    float acc[TM][TN] = {};
    auto compute = [&](int stage) {
        const float* as = smem + stage * Cfg::kStageFloats;
        const float* bs = as + BK * kLdA;
        alignas(16) float a_frag[2][TM];   // float4 stores below: 16-byte aligned (TM, TN multiples of 4)
        alignas(16) float b_frag[2][TN];
        auto load_frags = [&](int buffer, int k) {
#pragma unroll
            for (int s = 0; s < TM / 4; ++s) {
                *reinterpret_cast<float4*>(&a_frag[buffer][s * 4]) =
                    *reinterpret_cast<const float4*>(as + k * kLdA + warp_m + s * Cfg::kLanesM * 4 + lane_m);
            }
#pragma unroll
            for (int q = 0; q < TN / 4; ++q) {
                *reinterpret_cast<float4*>(&b_frag[buffer][q * 4]) =
                    *reinterpret_cast<const float4*>(bs + k * kLdB + warp_n + q * Cfg::kLanesN * 4 + lane_n);
            }
        };
        load_frags(0, 0);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k + 1 < BK) load_frags((k + 1) % 2, k + 1);   // in flight while the FMAs below run
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_frag[k % 2][i], b_frag[k % 2][j], acc[i][j]);
            }
        }
    };

    const int tiles = wb::ceil_div(K, BK);
    if constexpr (kAsync) {
        // Prologue: tiles 0 .. STAGES - 2 in flight. Every iteration commits one group (empty ones
        // too), so "all but the newest STAGES - 2 groups" is always "tile t has landed".
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < tiles) load(s, s);
            copy_commit();
        }
        int read_stage = 0, write_stage = STAGES - 1;
        for (int tile = 0; tile < tiles; ++tile) {
            copy_wait<STAGES - 2>();   // this thread's copies of tile `tile` are done ...
            __syncthreads();           // ... and everyone's; and everyone has finished tile - 1
            if (tile + STAGES - 1 < tiles) load(write_stage, tile + STAGES - 1);   // into tile - 1's buffer
            copy_commit();
            compute(read_stage);
            read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
            write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
        }
    } else {
        // Two buffers; the next tile waits in registers while this one is computed.
        float a_next[Cfg::kLoadsA];
        float4 b_next4[kVecB ? Cfg::kLoadsB4 : 1];
        float b_next1[kVecB ? 1 : Cfg::kLoadsB1];
        auto fetch = [&](int tile) {   // global -> registers, zeros past K
            const int k0 = tile * BK;
#pragma unroll
            for (int i = 0; i < Cfg::kLoadsA; ++i) a_next[i] = k0 + a_k < K ? a_block[k0 + a_offset[i]] : 0.0f;
            if constexpr (kVecB) {
#pragma unroll
                for (int i = 0; i < Cfg::kLoadsB4; ++i) {
                    const int k = k0 + b_k4 + i * kRowsPerPass4;
                    b_next4[i] = k < K ? *reinterpret_cast<const float4*>(B + static_cast<std::int64_t>(k) * N + b_col4)
                                       : make_float4(0.f, 0.f, 0.f, 0.f);
                }
            } else {
#pragma unroll
                for (int i = 0; i < Cfg::kLoadsB1; ++i) {
                    const int e = t + i * kThreads, k = k0 + e / BN, n = min(n0 + e % BN, N - 1);
                    b_next1[i] = k < K ? B[static_cast<std::int64_t>(k) * N + n] : 0.0f;
                }
            }
        };
        auto store = [&](int stage) {   // registers -> shared memory
            float* as = smem + stage * Cfg::kStageFloats;
            float* bs = as + BK * kLdA;
#pragma unroll
            for (int i = 0; i < Cfg::kLoadsA; ++i) as[a_k * kLdA + (t + i * kThreads) / BK] = a_next[i];
            if constexpr (kVecB) {
#pragma unroll
                for (int i = 0; i < Cfg::kLoadsB4; ++i) {
                    const int k = b_k4 + i * kRowsPerPass4;
                    *reinterpret_cast<float4*>(bs + k * kLdB + (t % kChunksPerRow) * 4) = b_next4[i];
                }
            } else {
#pragma unroll
                for (int i = 0; i < Cfg::kLoadsB1; ++i) {
                    const int e = t + i * kThreads;
                    bs[(e / BN) * kLdB + e % BN] = b_next1[i];
                }
            }
        };
        fetch(0);
        store(0);
        __syncthreads();
        for (int tile = 0; tile < tiles; ++tile) {
            const bool more = tile + 1 < tiles;
            if (more) fetch(tile + 1);   // global loads in flight during the FMAs below
            compute(tile % 2);
            if (more) store((tile + 1) % 2);   // the other buffer: nobody reads it during this tile
            __syncthreads();
        }
    }

    // Epilogue: C = alpha * acc + beta * C, float4 stores when N % 4 == 0.
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + warp_m + (i / 4) * Cfg::kLanesM * 4 + lane_m + i % 4;
        if (row >= M) continue;
        float* c_row = C + static_cast<std::int64_t>(row) * N;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const int col = n0 + warp_n + (j / 4) * Cfg::kLanesN * 4 + lane_n;
            const float4 r =
                make_float4(alpha * acc[i][j], alpha * acc[i][j + 1], alpha * acc[i][j + 2], alpha * acc[i][j + 3]);
            ch07::store_c4<kVecB>(c_row, col, N, r, beta);
        }
    }
}

/// True when this GPU has cp.async (compute capability 8.0 or newer).
bool device_has_cp_async()
{
    static const bool has = wb::device_attribute(cudaDevAttrComputeCapabilityMajor) >= 8;
    return has;
}

/// The number of SMs of this GPU.
int device_sm_count()
{
    static const int count = wb::device_attribute(cudaDevAttrMultiProcessorCount);
    return count;
}

template <class Cfg, bool kVecB, bool kAsync>
void launch_instance(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                     int group_m, cudaStream_t stream)
{
    constexpr int stages = kAsync ? Cfg::STAGES : 2;
    constexpr int smem_bytes = stages * Cfg::kStageFloats * static_cast<int>(sizeof(float));
    auto kernel = sgemm_pipelined_kernel<Cfg, kVecB, kAsync>;
    static const bool configured = [&] {   // more than 48 KB of dynamic shared memory must be asked for
        WB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
        return true;
    }();
    (void)configured;
    const int tiles = wb::ceil_div(M, Cfg::BM) * wb::ceil_div(N, Cfg::BN);
    kernel<<<tiles, Cfg::kThreads, smem_bytes, stream>>>(M, N, K, alpha, A, B, beta, C, std::max(group_m, 1));
    WB_CHECK_LAUNCH();
}

/// One configuration, every variant: aligned or not, cp.async or register staging.
template <class Cfg>
void launch_config(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C, int group_m,
                   bool use_async, cudaStream_t stream)
{
    const bool vec = N % 4 == 0;
    if (use_async) {
        if (vec)
            launch_instance<Cfg, true, true>(M, N, K, alpha, A, B, beta, C, group_m, stream);
        else
            launch_instance<Cfg, false, true>(M, N, K, alpha, A, B, beta, C, group_m, stream);
    } else {
        if (vec)
            launch_instance<Cfg, true, false>(M, N, K, alpha, A, B, beta, C, group_m, stream);
        else
            launch_instance<Cfg, false, false>(M, N, K, alpha, A, B, beta, C, group_m, stream);
    }
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

void sgemm_8_pipelined(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream)
{
    // The largest tile shape that still gives (nearly) every SM a block: a 1024^3 product has only
    // 32 tiles of 128 x 256, which would leave three quarters of an H100's 132 SMs idle.
    const bool async = device_has_cp_async();
    const std::int64_t enough = device_sm_count() * 3 / 4;
    auto tiles = [&](int bm, int bn) { return static_cast<std::int64_t>(wb::ceil_div(M, bm)) * wb::ceil_div(N, bn); };
    if (tiles(LargeTile::BM, LargeTile::BN) >= enough) {
        launch_config<LargeTile>(M, N, K, alpha, A, B, beta, C, kGroupM, async, stream);
    } else if (tiles(MediumTile::BM, MediumTile::BN) >= enough) {
        launch_config<MediumTile>(M, N, K, alpha, A, B, beta, C, kGroupM, async, stream);
    } else {
        launch_config<SmallTile>(M, N, K, alpha, A, B, beta, C, kGroupM, async, stream);
    }
}

}   // namespace WORKBOOK_TRACK
