// Catalog, chapter 8, stage 1: bf16 inputs multiplied as fp16.
// expect: wrong "read as fp16"
//
// fp16 and bf16 are both 16 bits, so a kernel that ignores the dtype argument reads bf16 inputs without
// any error, as fp16 bit patterns: 1 sign, 5 exponent and 10 fraction bits instead of 1, 8 and 7. Every
// fp16 case passes; the first bf16 case is wrong. The grader runs each case in both types for this, and
// must find that the results are those of the inputs' bits read as fp16.
#include "08_tensor_gemm/stages.cuh"
#include "common/primitives.cuh"

#include <mma.h>

namespace WORKBOOK_TRACK {

namespace {

namespace wmma = nvcuda::wmma;

constexpr int kTile = 16;           // WMMA's 16 x 16 x 16 shape
constexpr int kWarpsPerBlock = 4;   // 4 warps side by side along N

/// Copies rows r0 .. r0 + 15, columns k0 .. k0 + 15 of a K-contiguous matrix of @p rows rows into a
/// 16 x 16 tile, zeros outside the matrix. 32 lanes, 32 chunks of 8 elements: one chunk per lane.
__device__ void stage_tile(std::uint16_t* tile, const std::uint16_t* src, int r0, int rows, int k0, int K, int lane)
{
    const int r = lane / 2, half = lane % 2;
    const int k = k0 + half * ch08::kChunkElems;
    const bool inside = r0 + r < rows && k < K;   // K % 8 == 0: a chunk is all inside or all outside
    const ch08::Chunk value =
        inside ? *reinterpret_cast<const ch08::Chunk*>(src + static_cast<std::int64_t>(r0 + r) * K + k)
               : ch08::zero_chunk();
    *reinterpret_cast<ch08::Chunk*>(tile + r * kTile + half * ch08::kChunkElems) = value;
}

template <typename T>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    hgemm_wmma_naive_kernel(int M, int N, int K, float alpha, const T* __restrict__ A, const T* __restrict__ B,
                            float beta, float* __restrict__ C)
{
    // Per warp: staging tiles for partial tiles at the edges, and the 16 x 16 result for the epilogue.
    __shared__ __align__(32) std::uint16_t a_stage[kWarpsPerBlock][kTile * kTile];
    __shared__ __align__(32) std::uint16_t b_stage[kWarpsPerBlock][kTile * kTile];
    __shared__ __align__(32) float c_stage[kWarpsPerBlock][kTile * kTile];

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int m0 = blockIdx.y * kTile;
    const int n0 = (blockIdx.x * kWarpsPerBlock + warp) * kTile;
    if (n0 >= N) return;   // the whole warp leaves together (no __syncthreads() below)

    wmma::fragment<wmma::matrix_a, kTile, kTile, kTile, T, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, kTile, kTile, kTile, T, wmma::col_major> b;   // B is N x K: col-major K x N
    wmma::fragment<wmma::accumulator, kTile, kTile, kTile, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    const auto* a_bits = reinterpret_cast<const std::uint16_t*>(A);
    const auto* b_bits = reinterpret_cast<const std::uint16_t*>(B);
    const bool full_mn = m0 + kTile <= M && n0 + kTile <= N;
    for (int k0 = 0; k0 < K; k0 += kTile) {
        if (full_mn && k0 + kTile <= K) {
            // The whole 16 x 16 pieces are inside: load them from global memory. The pointers are
            // 32-byte aligned (rows m0 = 16 i start at 32 i K bytes, k0 is a multiple of 16) and the
            // leading dimension K is a multiple of 8 elements, as load_matrix_sync requires.
            wmma::load_matrix_sync(a, A + static_cast<std::int64_t>(m0) * K + k0, K);
            wmma::load_matrix_sync(b, B + static_cast<std::int64_t>(n0) * K + k0, K);
        } else {
            // A partial tile (an edge of C, or the last 8 of K): copy it with zeros around it.
            stage_tile(a_stage[warp], a_bits, m0, M, k0, K, lane);
            stage_tile(b_stage[warp], b_bits, n0, N, k0, K, lane);
            __syncwarp();
            wmma::load_matrix_sync(a, reinterpret_cast<const T*>(a_stage[warp]), kTile);
            wmma::load_matrix_sync(b, reinterpret_cast<const T*>(b_stage[warp]), kTile);
            __syncwarp();   // every lane has its fragments before the next step overwrites the tiles
        }
        wmma::mma_sync(acc, a, b, acc);
    }

    // Which lane holds which element of `acc` is not specified: store it to shared memory, then each
    // lane finishes the elements it picks there, with bounds tests.
    wmma::store_matrix_sync(c_stage[warp], acc, kTile, wmma::mem_row_major);
    __syncwarp();
    for (int i = lane; i < kTile * kTile; i += 32) {
        const int row = m0 + i / kTile, col = n0 + i % kTile;
        if (row < M && col < N)
            ch08::store_c(C + static_cast<std::int64_t>(row) * N + col, c_stage[warp][i], alpha, beta);
    }
}

template <typename T>
void launch(int M, int N, int K, float alpha, const void* A, const void* B, float beta, float* C, cudaStream_t stream)
{
    const dim3 block(kWarpsPerBlock * 32);
    const dim3 grid(wb::ceil_div(N, kTile * kWarpsPerBlock), wb::ceil_div(M, kTile));
    hgemm_wmma_naive_kernel<T>
        <<<grid, block, 0, stream>>>(M, N, K, alpha, static_cast<const T*>(A), static_cast<const T*>(B), beta, C);
    WB_CHECK_LAUNCH();
}

}   // namespace

void hgemm_1_wmma_naive(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                        float* C, cudaStream_t stream)
{
    (void)dtype;   // the element type is ignored: bf16 bits are multiplied as if they were fp16
    launch<__half>(M, N, K, alpha, A, B, beta, C, stream);
}

}   // namespace WORKBOOK_TRACK
