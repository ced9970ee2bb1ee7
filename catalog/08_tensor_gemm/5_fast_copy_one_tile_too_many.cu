// Catalog, chapter 8, stage 5: the fast copy loop copies one K tile too many.
// expect: wrong "memcheck found"
// emulated: crashed "read past the end of an input array"
//
// The reference stage 5 with `tile <= tiles` where `tile < tiles` was meant, in the loop for blocks wholly
// inside M and N (no bounds tests). Near the end of K the prologue and the refills ask for tiles past the
// last; with this bug the fast loop copies one of them: 64 columns past K in every row of the block, which
// is the start of the next row, and for the last row of A and B, past the end of the array. That tile is
// never multiplied, so every number is right. The emulator checks the source of every cp.async against
// the end of its array and stops it (it needs a case with a whole 128 x 256 block and K a multiple of 64).
// On a GPU only memcheck can see it, and only because of the fences around every buffer under memcheck
// (harness/buffers.hpp): the fast loop runs only where M and N are multiples of the block tile and K of
// 64, so A and B are multiples of 512 bytes, and with plain cudaMalloc the bytes read past A are the start
// of the next allocation, which memcheck accepts. Measured on an H100: passed before the fences, "memcheck
// found 13 errors" with them.
#include "08_tensor_gemm/stages.cuh"
#include "common/primitives.cuh"
#include "common/tensor_core.cuh"

#include <type_traits>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBM = 128, kBK = 64;   // block tile rows; K step (one 128-byte row per tile row)
constexpr int kWM = 64, kWN = 64;    // warp tile
constexpr int kWarpsM = kBM / kWM;
constexpr int kMmaM = kWM / 16, kMmaN = kWN / 8;
constexpr int kKSteps = kBK / 16;                        // mma K steps per tile
constexpr int kChunksPerRow = kBK / ch08::kChunkElems;   // 8
constexpr int kTileElemsA = kBM * kBK;                   // one tile of A
constexpr int kGroupRows = 8;                            // block rows per raster group

/// The block tile's columns and the pipeline's buffers: the launch takes the first shape whose shared
/// memory the GPU gives one block (the A and B tiles of all buffers).
template <int BN, int STAGES>
struct Shape {
    static constexpr int kBN = BN, kStages = STAGES;
    static constexpr int kWarpsN = kBN / kWN;
    static constexpr int kThreads = kWarpsM * kWarpsN * 32;
    static constexpr int kCopyRowStep = kThreads / kChunksPerRow;     // rows one pass of the copies
    static constexpr int kCopiesA = kBM * kChunksPerRow / kThreads;   // per thread and A tile
    static constexpr int kCopiesB = kBN * kChunksPerRow / kThreads;   // per thread and B tile
    static constexpr int kStageElems = kTileElemsA + kBN * kBK;       // A and B of one buffer
    static constexpr int kSmemBytes = kStages * kStageElems * sizeof(std::uint16_t);
};
using Wide = Shape<256, 4>;       // 192 KiB, 8 warps: H100, H200 (227 KiB a block)
using WideLean = Shape<256, 3>;   // 144 KiB: A100 (163 KiB)
using Square = Shape<128, 3>;     // 96 KiB, 4 warps: GPUs with about 100 KiB a block (RTX 30 and 40 series)

/// Where element (r, k) of a tile lives: chunk k / 8 of row r is stored at chunk (k / 8) ^ (r % 8). @p k
/// is a multiple of 8 in every use (a chunk start, as cp.async and ldmatrix rows need).
__device__ __forceinline__ int tile_offset(int r, int k)
{
    static_assert(kChunksPerRow == 8, "the swizzle below permutes 8 chunks per row");
    return r * kBK + (((k / ch08::kChunkElems) ^ (r % 8)) * ch08::kChunkElems);
}

/// The checked copy of rows r0 .. r0 + kCopies * kThreads / 8 - 1, columns k0 .. k0 + 63 (zero-filled
/// outside the matrix).
template <int kCopies, int kThreads>
__device__ void copy_tile_checked(std::uint16_t* tile, const std::uint16_t* src, int r0, int rows, int k0, int K)
{
#pragma unroll
    for (int copy = 0; copy < kCopies; ++copy) {
        const int i = threadIdx.x + copy * kThreads;
        const int r = i / kChunksPerRow, k = (i % kChunksPerRow) * ch08::kChunkElems;
        const bool inside = r0 + r < rows && k0 + k < K;
        // Outside the matrix the source is not read (size 0); still hand the copy a valid address.
        const std::uint16_t* from = inside ? src + static_cast<std::int64_t>(r0 + r) * K + k0 + k : src;
        ch08::cp_async16(tile + tile_offset(r, k), from, inside);
    }
}

/// The fast copy of a tile known to be inside the matrix: @p from points at this thread's first chunk
/// (row threadIdx.x / 8 of the tile, column k0 + (threadIdx.x % 8) * 8); later passes are kCopyRowStep
/// rows further down.
template <int kCopies, int kCopyRowStep>
__device__ __forceinline__ void copy_tile_inside(std::uint16_t* tile, const std::uint16_t* from, std::int64_t row_step)
{
    static_assert(kCopyRowStep % 8 == 0, "every pass keeps r % 8, so the swizzle");
    const int r = threadIdx.x / kChunksPerRow, k = (threadIdx.x % kChunksPerRow) * ch08::kChunkElems;
    std::uint16_t* to = tile + tile_offset(r, k);
#pragma unroll
    for (int copy = 0; copy < kCopies; ++copy)
        ch08::cp_async16(to + copy * kCopyRowStep * kBK, from + copy * row_step, true);
}

/// One K step's fragments of this warp: 4 A fragments (16 x 16) and 8 B fragments (16 x 8).
struct Fragments {
    std::uint32_t a[kMmaM][4];
    std::uint32_t b[kMmaN][2];
};

__device__ __forceinline__ void load_fragments(Fragments& f, const std::uint16_t* As, const std::uint16_t* Bs, int wm,
                                               int wn, int kk, int lane)
{
    const int a_at0 = (wm + lane % 16) * kBK + (((lane / 16) ^ (lane % 8)) * ch08::kChunkElems);
    const int b_at0 = (wn + (lane / 16) * 8 + lane % 8) * kBK + ((((lane / 8) % 2) ^ (lane % 8)) * ch08::kChunkElems);
#pragma unroll
    for (int i = 0; i < kMmaM; ++i) wb::ldmatrix_x4(f.a[i], As + i * 16 * kBK + (a_at0 ^ kk));
#pragma unroll
    for (int j = 0; j < kMmaN; j += 2) {   // one ldmatrix.x4 gives the fragments of n and n + 8
        std::uint32_t r[4];
        wb::ldmatrix_x4(r, Bs + j * 8 * kBK + (b_at0 ^ kk));
        f.b[j][0] = r[0], f.b[j][1] = r[1], f.b[j + 1][0] = r[2], f.b[j + 1][1] = r[3];
    }
}

template <typename T>
__device__ __forceinline__ void mma_all(float (&acc)[kMmaM][kMmaN][4], const Fragments& f)
{
#pragma unroll
    for (int i = 0; i < kMmaM; ++i)
#pragma unroll
        for (int j = 0; j < kMmaN; ++j) wb::mma_m16n8k16<T>(acc[i][j], f.a[i], f.b[j], acc[i][j]);
}

template <typename T, class S>
__global__ void __launch_bounds__(S::kThreads, 1)
    hgemm_swizzle_kernel(int M, int N, int K, float alpha, const T* __restrict__ A, const T* __restrict__ B, float beta,
                         float* __restrict__ C)
{
    extern __shared__ __align__(128) std::uint16_t smem[];   // kStages x { As[m][k], Bs[n][k] }

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    constexpr int kBN = S::kBN, kStages = S::kStages, kStageElems = S::kStageElems;
    const int wm = (warp / S::kWarpsN) * kWM, wn = (warp % S::kWarpsN) * kWN;
    int bm, bn;
    ch08::grouped_tile(blockIdx.x, wb::ceil_div(M, kBM), wb::ceil_div(N, kBN), kGroupRows, bm, bn);
    const int m0 = bm * kBM, n0 = bn * kBN;
    const auto* a_bits = reinterpret_cast<const std::uint16_t*>(A);
    const auto* b_bits = reinterpret_cast<const std::uint16_t*>(B);
    const int tiles = wb::ceil_div(K, kBK);

    // The fast copy's per-thread source pointers (used only for blocks wholly inside M and N).
    const bool inside_mn = m0 + kBM <= M && n0 + kBN <= N;
    const int copy_row = inside_mn ? static_cast<int>(threadIdx.x) / kChunksPerRow : 0;
    const int copy_k = (threadIdx.x % kChunksPerRow) * ch08::kChunkElems;
    const std::uint16_t* a_from = a_bits + static_cast<std::int64_t>(m0 + copy_row) * K + copy_k;
    const std::uint16_t* b_from = b_bits + static_cast<std::int64_t>(n0 + copy_row) * K + copy_k;
    const std::int64_t row_step = static_cast<std::int64_t>(S::kCopyRowStep) * K;

    // Two copies of the loop: blocks wholly inside M and N with K a multiple of the K step copy without a
    // single test; the others check every chunk. Kept apart, the checked copy's registers do not crowd the
    // fast loop (in one loop they made ptxas spill).
    auto run = [&](auto all_inside) {
        auto issue = [&](int tile) {   // the copies of K tile `tile` into its buffer, as one commit group
            std::uint16_t* stage = smem + (tile % kStages) * kStageElems;
            // The fast loop copies every tile without a test; the other one still does so for the whole
            // tiles of blocks inside M and N (all but a K tail).
            // BUG: <= tiles: the fast loop also copies the K tile after the last one
            const bool whole = decltype(all_inside)::value ? tile <= tiles : inside_mn && (tile + 1) * kBK <= K;
            if (whole) {
                copy_tile_inside<S::kCopiesA, S::kCopyRowStep>(stage, a_from + tile * kBK, row_step);
                copy_tile_inside<S::kCopiesB, S::kCopyRowStep>(stage + kTileElemsA, b_from + tile * kBK, row_step);
            } else if (!decltype(all_inside)::value && tile < tiles) {
                copy_tile_checked<S::kCopiesA, S::kThreads>(stage, a_bits, m0, M, tile * kBK, K);
                copy_tile_checked<S::kCopiesB, S::kThreads>(stage + kTileElemsA, b_bits, n0, N, tile * kBK, K);
            }
            ch08::cp_async_commit();   // an empty group past the end keeps the wait count below uniform
        };

        for (int tile = 0; tile < kStages - 1; ++tile) issue(tile);
        ch08::cp_async_wait<kStages - 2>();   // tile 0 has landed, for everyone after the barrier
        __syncthreads();

        float acc[kMmaM][kMmaN][4] = {};
        Fragments frag[2];   // the step being computed and the next one, loaded meanwhile
        load_fragments(frag[0], smem, smem + kTileElemsA, wm, wn, 0, lane);
        for (int tile = 0; tile < tiles; ++tile) {
            const std::uint16_t* stage = smem + (tile % kStages) * kStageElems;
#pragma unroll
            for (int step = 0; step < kKSteps; ++step) {
                if (step < kKSteps - 1) {
                    load_fragments(frag[(step + 1) % 2], stage, stage + kTileElemsA, wm, wn, (step + 1) * 16, lane);
                } else {
                    // Last step of this tile: wait for the next tile (the barrier also tells that everyone
                    // has finished reading this buffer's predecessor), then fetch its first fragments.
                    ch08::cp_async_wait<kStages - 2>();
                    __syncthreads();
                    if (tile + 1 < tiles) {
                        const std::uint16_t* next = smem + ((tile + 1) % kStages) * kStageElems;
                        load_fragments(frag[(step + 1) % 2], next, next + kTileElemsA, wm, wn, 0, lane);
                    }
                }
                // Refill the buffer of tile - 1: every warp passed the barrier after its last read.
                if (step == 0) issue(tile + kStages - 1);
                mma_all<T>(acc, frag[step % 2]);
            }
        }
        ch08::cp_async_wait<0>();   // no copy may still target shared memory when the block ends

        // Each thread holds pairs of neighbouring columns (c0, c1 and c2, c3 of the mma layout): one 8-byte
        // store per pair.
        const int g = lane / 4, t = lane % 4;
#pragma unroll
        for (int i = 0; i < kMmaM; ++i)
#pragma unroll
            for (int j = 0; j < kMmaN; ++j)
#pragma unroll
                for (int half = 0; half < 2; ++half)
                    ch08::store_c_pair(C, m0 + wm + i * 16 + g + half * 8, n0 + wn + j * 8 + 2 * t, M, N,
                                       acc[i][j][2 * half], acc[i][j][2 * half + 1], alpha, beta);
    };
    if (inside_mn && K % kBK == 0) {
        run(std::true_type{});
    } else {
        run(std::false_type{});
    }
}

template <typename T, class S>
void launch(int M, int N, int K, float alpha, const void* A, const void* B, float beta, float* C, cudaStream_t stream)
{
    auto kernel = hgemm_swizzle_kernel<T, S>;
    static const bool configured = [&] {   // more than the default 48 KiB of shared memory must be asked for
        WB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes));
        return true;
    }();
    (void)configured;
    const int blocks = wb::ceil_div(M, kBM) * wb::ceil_div(N, S::kBN);
    kernel<<<blocks, S::kThreads, S::kSmemBytes, stream>>>(M, N, K, alpha, static_cast<const T*>(A),
                                                           static_cast<const T*>(B), beta, C);
    WB_CHECK_LAUNCH();
}

/// The first shape, widest first, whose buffers fit in the shared memory this GPU gives one block.
template <typename T>
void launch_widest(int M, int N, int K, float alpha, const void* A, const void* B, float beta, float* C,
                   cudaStream_t stream)
{
    const int per_block = wb::device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    if (per_block >= Wide::kSmemBytes) {
        launch<T, Wide>(M, N, K, alpha, A, B, beta, C, stream);
    } else if (per_block >= WideLean::kSmemBytes) {
        launch<T, WideLean>(M, N, K, alpha, A, B, beta, C, stream);
    } else {
        launch<T, Square>(M, N, K, alpha, A, B, beta, C, stream);
    }
}

}   // namespace

void hgemm_5_swizzle(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                     float* C, cudaStream_t stream)
{
    if (dtype == ch08::Dtype::f16) {
        launch_widest<__half>(M, N, K, alpha, A, B, beta, C, stream);
    } else {
        launch_widest<__nv_bfloat16>(M, N, K, alpha, A, B, beta, C, stream);
    }
}

}   // namespace WORKBOOK_TRACK
