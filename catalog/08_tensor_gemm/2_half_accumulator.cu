// Catalog, chapter 8, stage 2: fp16 products accumulated in __half fragments, as cublasHgemm's name suggests.
// expect: wrong "accumulate in float"
// emulated: wrong "accumulate in float"
//
// The reference stage 2 with `wmma::fragment<wmma::accumulator, 16, 16, 16, __half>` when the inputs are
// fp16 (bf16 has no 16-bit accumulator, so it keeps float): half the registers, and on many consumer GPUs
// twice the tensor-core rate of fp32 accumulation, which is why "fp16 in, fp16 out" GEMMs exist. The
// contract asks for fp32 accumulation. An fp16 accumulator keeps 11 significant bits: the products of
// the grader's inputs (8 significant bits each) already need 16, and every partial sum is rounded again,
// so the first case (fp16, K = 24) is already off by far more than fp32 accumulation allows, in emulation
// as on a GPU. Its results are alpha * acc, not fp16 numbers themselves: the grader must take them back
// through the epilogue to see fp16 sums, and say "accumulate in float".
#include "08_tensor_gemm/stages.cuh"
#include "common/primitives.cuh"

#include <mma.h>

#include <type_traits>

namespace WORKBOOK_TRACK {

namespace {

namespace wmma = nvcuda::wmma;

constexpr int kBM = 64, kBN = 64, kBK = 32;   // block tile; K step
constexpr int kWM = 32, kWN = 32;             // warp tile: 2 x 2 WMMA fragments
constexpr int kWarpsM = kBM / kWM, kWarpsN = kBN / kWN;
constexpr int kThreads = kWarpsM * kWarpsN * 32;
constexpr int kFragsM = kWM / 16, kFragsN = kWN / 16;
constexpr int kLd = kBK + 8;    // shared row length in elements: 16 bytes of padding (a multiple of 8, as WMMA wants)
constexpr int kLdC = kBN + 8;   // result tile row length (a multiple of 8 elements, as WMMA wants for __half)

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
    // The bug: with fp16 inputs the accumulators are fp16 too.
    using Acc = std::conditional_t<std::is_same_v<T, __half>, __half, float>;
    __shared__ __align__(32) Acc Cs[kBM * kLdC];

    const int warp = threadIdx.x / 32;
    const int wm = (warp / kWarpsN) * kWM, wn = (warp % kWarpsN) * kWN;
    const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, Acc> acc[kFragsM][kFragsN];
#pragma unroll
    for (int i = 0; i < kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragsN; ++j) wmma::fill_fragment(acc[i][j], static_cast<Acc>(0.0f));

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
            ch08::store_c(C + static_cast<std::int64_t>(row) * N + col, static_cast<float>(Cs[r * kLdC + c]), alpha,
                          beta);
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
