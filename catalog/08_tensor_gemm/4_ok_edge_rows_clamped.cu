// Catalog, chapter 8, stage 4: a right kernel in another style: rows past the edge repeat the last row.
// expect: passed
//
// The control of the entries that copy a row past the end (4_copy_one_row_past_the_edge and its kin): the
// tile copy clamps a row past M (or N) to the last one instead of zero-filling it, as chapter 7's stage 8
// does. Those rows are multiplied into rows of C that are never stored, so every number is right, and every
// read stays inside A and B. The grader must pass it, on a GPU (compute-sanitizer included) and in the
// emulator, which checks the source of every cp.async.
#include "08_tensor_gemm/stages.cuh"
#include "common/primitives.cuh"
#include "common/tensor_core.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBM = 128, kBN = 128, kBK = 32;   // block tile; K step
constexpr int kStages = 3;                      // shared-memory buffers in the pipeline
constexpr int kWM = 64, kWN = 32;               // warp tile
constexpr int kWarpsM = kBM / kWM, kWarpsN = kBN / kWN;
constexpr int kThreads = kWarpsM * kWarpsN * 32;
constexpr int kMmaM = kWM / 16, kMmaN = kWN / 8;
constexpr int kLd = kBK + 8;                  // padded shared rows (stage 5 removes the padding)
constexpr int kTileElems = kBM * kLd;         // one operand tile
constexpr int kStageElems = 2 * kTileElems;   // A and B of one pipeline stage
constexpr std::size_t kSmemBytes = kStages * kStageElems * sizeof(std::uint16_t);

/// Where element (r, k) of a tile lives.
__device__ __forceinline__ int tile_offset(int r, int k) { return r * kLd + k; }

/// Issues the cp.async copies of rows r0 .. r0 + 127, columns k0 .. k0 + kBK - 1 (zero-filled outside).
__device__ void copy_tile_async(std::uint16_t* tile, const std::uint16_t* src, int r0, int rows, int k0, int K)
{
    constexpr int kChunksPerRow = kBK / ch08::kChunkElems;
    static_assert(kBM == kBN && kBM * kChunksPerRow % kThreads == 0, "the copies divide evenly");
#pragma unroll
    for (int copy = 0; copy < kBM * kChunksPerRow / kThreads; ++copy) {
        const int i = threadIdx.x + copy * kThreads;
        const int r = i / kChunksPerRow, k = (i % kChunksPerRow) * ch08::kChunkElems;
        // Rows past the edge repeat the last row (their products land in rows of C that are never stored);
        // only columns past K must be zeros, since they are summed into every product.
        const int row = min(r0 + r, rows - 1);
        const bool inside = k0 + k < K;
        const std::uint16_t* from = inside ? src + static_cast<std::int64_t>(row) * K + k0 + k : src;
        ch08::cp_async16(tile + tile_offset(r, k), from, inside);
    }
}

template <typename T>
__device__ __forceinline__ void mma_step(float (&acc)[kMmaM][kMmaN][4], const std::uint16_t* As,
                                         const std::uint16_t* Bs, int wm, int wn, int kk, int lane)
{
    std::uint32_t a[kMmaM][4], b[kMmaN][2];
#pragma unroll
    for (int i = 0; i < kMmaM; ++i)
        wb::ldmatrix_x4(a[i], As + tile_offset(wm + i * 16 + lane % 16, kk + (lane / 16) * 8));
#pragma unroll
    for (int j = 0; j < kMmaN; j += 2) {
        std::uint32_t r[4];
        wb::ldmatrix_x4(r, Bs + tile_offset(wn + j * 8 + (lane / 16) * 8 + lane % 8, kk + ((lane / 8) % 2) * 8));
        b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
    }
#pragma unroll
    for (int i = 0; i < kMmaM; ++i)
#pragma unroll
        for (int j = 0; j < kMmaN; ++j) wb::mma_m16n8k16<T>(acc[i][j], a[i], b[j], acc[i][j]);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    hgemm_cp_async_kernel(int M, int N, int K, float alpha, const T* __restrict__ A, const T* __restrict__ B,
                          float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) std::uint16_t smem[];   // kStages x { As[m][k], Bs[n][k] }

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = (warp / kWarpsN) * kWM, wn = (warp % kWarpsN) * kWN;
    const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
    const auto* a_bits = reinterpret_cast<const std::uint16_t*>(A);
    const auto* b_bits = reinterpret_cast<const std::uint16_t*>(B);
    const int tiles = wb::ceil_div(K, kBK);

    auto issue = [&](int tile) {   // the copies of K tile `tile` into its buffer, as one commit group
        if (tile < tiles) {
            std::uint16_t* stage = smem + (tile % kStages) * kStageElems;
            copy_tile_async(stage, a_bits, m0, M, tile * kBK, K);
            copy_tile_async(stage + kTileElems, b_bits, n0, N, tile * kBK, K);
        }
        ch08::cp_async_commit();   // an empty group past the end keeps the wait count below uniform
    };

    for (int tile = 0; tile < kStages - 1; ++tile) issue(tile);

    float acc[kMmaM][kMmaN][4] = {};
    for (int tile = 0; tile < tiles; ++tile) {
        ch08::cp_async_wait<kStages - 2>();   // this thread's copies of `tile` have landed ...
        __syncthreads();                      // ... and everyone's; also, all are done with tile - 1
        issue(tile + kStages - 1);            // refills the buffer of tile - 1
        const std::uint16_t* stage = smem + (tile % kStages) * kStageElems;
#pragma unroll
        for (int kk = 0; kk < kBK; kk += 16) mma_step<T>(acc, stage, stage + kTileElems, wm, wn, kk, lane);
    }
    ch08::cp_async_wait<0>();   // no copy may still target shared memory when the block ends

    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < kMmaM; ++i)
#pragma unroll
        for (int j = 0; j < kMmaN; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int row = m0 + wm + i * 16 + g + (e / 2) * 8, col = n0 + wn + j * 8 + 2 * t + e % 2;
                if (row < M && col < N)
                    ch08::store_c(C + static_cast<std::int64_t>(row) * N + col, acc[i][j][e], alpha, beta);
            }
}

template <typename T>
void launch(int M, int N, int K, float alpha, const void* A, const void* B, float beta, float* C, cudaStream_t stream)
{
    auto kernel = hgemm_cp_async_kernel<T>;
    static const bool configured = [&] {   // more than the default 48 KiB of dynamic shared memory
        WB_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmemBytes)));
        return true;
    }();
    (void)configured;
    const dim3 grid(wb::ceil_div(N, kBN), wb::ceil_div(M, kBM));
    kernel<<<grid, kThreads, kSmemBytes, stream>>>(M, N, K, alpha, static_cast<const T*>(A), static_cast<const T*>(B),
                                                   beta, C);
    WB_CHECK_LAUNCH();
}

}   // namespace

void hgemm_4_cp_async(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                      float* C, cudaStream_t stream)
{
    if (dtype == ch08::Dtype::f16) {
        launch<__half>(M, N, K, alpha, A, B, beta, C, stream);
    } else {
        launch<__nv_bfloat16>(M, N, K, alpha, A, B, beta, C, stream);
    }
}

}   // namespace WORKBOOK_TRACK
