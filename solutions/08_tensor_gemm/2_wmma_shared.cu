// Chapter 8, stage 2: WMMA with shared-memory block tiles.                    (reference solution)
//
// Why it is faster than stage 1: a block of 4 warps computes a 64 x 64 tile of C. Per K step it copies
// a 64 x 32 tile of A and of B into shared memory once (16-byte loads, coalesced), and the 4 warps read
// their fragments from there: each element loaded from global memory feeds 2 warps instead of 1, and
// inside a warp (a 32 x 32 part, 2 x 2 fragments) each fragment of A meets 2 of B. Global traffic per
// mma halves and the loads are wide; the tensor cores wait less.
#include "08_tensor_gemm/stages.cuh"
#include "common/primitives.cuh"

#include <mma.h>

namespace WORKBOOK_TRACK {

namespace {

namespace wmma = nvcuda::wmma;

constexpr int kBM = 64, kBN = 64, kBK = 32;   // block tile; K step
constexpr int kWM = 32, kWN = 32;             // warp tile: 2 x 2 WMMA fragments
constexpr int kWarpsM = kBM / kWM, kWarpsN = kBN / kWN;
constexpr int kThreads = kWarpsM * kWarpsN * 32;
constexpr int kFragsM = kWM / 16, kFragsN = kWN / 16;
constexpr int kLd = kBK + 8;    // shared row length in elements: 16 bytes of padding (a multiple of 8, as WMMA wants)
constexpr int kLdC = kBN + 4;   // fp32 result tile row length (a multiple of 4 floats)

/// Copies rows r0 .. r0 + kBM - 1, columns k0 .. k0 + kBK - 1 of a K-contiguous matrix into a tile
/// of kLd-element rows, zeros outside the matrix. 16-byte chunks, spread over the block.
__device__ void load_tile(std::uint16_t* tile, const std::uint16_t* src, int r0, int rows, int k0, int K)
{
    constexpr int kChunksPerRow = kBK / ch08::kChunkElems;
    for (int i = threadIdx.x; i < kBM * kChunksPerRow; i += kThreads) {
        const int r = i / kChunksPerRow, k = (i % kChunksPerRow) * ch08::kChunkElems;
        const bool inside = r0 + r < rows && k0 + k < K;
        *reinterpret_cast<ch08::Chunk*>(tile + r * kLd + k) =
            inside ? *reinterpret_cast<const ch08::Chunk*>(src + static_cast<std::int64_t>(r0 + r) * K + k0 + k)
                   : ch08::zero_chunk();
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    hgemm_wmma_shared_kernel(int M, int N, int K, float alpha, const T* __restrict__ A, const T* __restrict__ B,
                             float beta, float* __restrict__ C)
{
    static_assert(kBM == kBN, "load_tile serves A and B with one row count");
    __shared__ __align__(32) std::uint16_t As[kBM * kLd];   // As[m][k]
    __shared__ __align__(32) std::uint16_t Bs[kBN * kLd];   // Bs[n][k]: B's K x N tile, column-major
    __shared__ __align__(32) float Cs[kBM * kLdC];

    const int warp = threadIdx.x / 32;
    const int wm = (warp / kWarpsN) * kWM, wn = (warp % kWarpsN) * kWN;
    const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFragsM][kFragsN];
#pragma unroll
    for (int i = 0; i < kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const auto* a_bits = reinterpret_cast<const std::uint16_t*>(A);
    const auto* b_bits = reinterpret_cast<const std::uint16_t*>(B);
    for (int k0 = 0; k0 < K; k0 += kBK) {
        load_tile(As, a_bits, m0, M, k0, K);
        load_tile(Bs, b_bits, n0, N, k0, K);
        __syncthreads();   // the tiles are complete
#pragma unroll
        for (int kk = 0; kk < kBK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a[kFragsM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b[kFragsN];
#pragma unroll
            for (int i = 0; i < kFragsM; ++i)
                wmma::load_matrix_sync(a[i], reinterpret_cast<const T*>(As + (wm + i * 16) * kLd + kk), kLd);
#pragma unroll
            for (int j = 0; j < kFragsN; ++j)
                wmma::load_matrix_sync(b[j], reinterpret_cast<const T*>(Bs + (wn + j * 16) * kLd + kk), kLd);
#pragma unroll
            for (int i = 0; i < kFragsM; ++i)
#pragma unroll
                for (int j = 0; j < kFragsN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();   // everyone has read the tiles before the next step overwrites them
    }

    // Epilogue through shared memory (WMMA does not say which lane holds which element).
#pragma unroll
    for (int i = 0; i < kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragsN; ++j)
            wmma::store_matrix_sync(Cs + (wm + i * 16) * kLdC + wn + j * 16, acc[i][j], kLdC, wmma::mem_row_major);
    __syncthreads();
    for (int i = threadIdx.x; i < kBM * kBN; i += kThreads) {   // consecutive threads, consecutive columns
        const int r = i / kBN, c = i % kBN;
        const int row = m0 + r, col = n0 + c;
        if (row < M && col < N)
            ch08::store_c(C + static_cast<std::int64_t>(row) * N + col, Cs[r * kLdC + c], alpha, beta);
    }
}

template <typename T>
void launch(int M, int N, int K, float alpha, const void* A, const void* B, float beta, float* C, cudaStream_t stream)
{
    const dim3 grid(wb::ceil_div(N, kBN), wb::ceil_div(M, kBM));
    hgemm_wmma_shared_kernel<T>
        <<<grid, kThreads, 0, stream>>>(M, N, K, alpha, static_cast<const T*>(A), static_cast<const T*>(B), beta, C);
    WB_CHECK_LAUNCH();
}

}   // namespace

void hgemm_2_wmma_shared(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                         float* C, cudaStream_t stream)
{
    if (dtype == ch08::Dtype::f16) {
        launch<__half>(M, N, K, alpha, A, B, beta, C, stream);
    } else {
        launch<__nv_bfloat16>(M, N, K, alpha, A, B, beta, C, stream);
    }
}

}   // namespace WORKBOOK_TRACK
