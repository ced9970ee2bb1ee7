// Catalog, chapter 7, stage 4: the B value each thread reuses kept in a __nv_bfloat16 register, "it has float's range".
// expect: wrong "8 significant bits"
// emulated: wrong "8 significant bits"
//
// The reference stage 4 with the element of B that a thread reuses for its 8 FMAs loaded into a
// `__nv_bfloat16` instead of a float, then widened for each FMA: bfloat16 keeps float's exponent, so
// nothing overflows, and training frameworks multiply in it all the time. But it keeps 8 significant bits
// of the 24 the contract multiplies: every product with B is off by up to 2^-8 of its size and every
// case fails. A is used as it is, so only the product of A with B rounded to bfloat16 matches the results;
// the grader must try that and say that B was rounded to 8 significant bits.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

#include <cuda_bf16.h>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBM = 64;   // block tile: kBM rows x kBN columns of C
constexpr int kBN = 64;
constexpr int kBK = 8;                      // K step
constexpr int kTM = 8;                      // outputs per thread, down a column
constexpr int kThreads = kBM * kBN / kTM;   // 512
static_assert(kBM * kBK == kThreads && kBK * kBN == kThreads, "one element of each tile per thread");

__global__ void __launch_bounds__(kThreads)
    sgemm_1d_tile_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                         float beta, float* __restrict__ C)
{
    __shared__ float As[kBM][kBK];
    __shared__ float Bs[kBK][kBN];
    const int t = threadIdx.x;
    const int m0 = blockIdx.y * kBM;
    const int n0 = blockIdx.x * kBN;
    // This thread's outputs: rows thread_row * kTM .. + kTM - 1 of column thread_col of the tile.
    // A warp is 32 consecutive columns of one row group, so its reads of As are broadcasts.
    const int thread_col = t % kBN;
    const int thread_row = t / kBN;
    // What this thread loads: one element of the A tile (8 consecutive threads read one row's 8 k)
    // and one of the B tile (64 consecutive threads read one row).
    const int a_row = t / kBK, a_k = t % kBK;
    const int b_k = t / kBN, b_col = t % kBN;
    const bool a_row_ok = m0 + a_row < M;
    const bool b_col_ok = n0 + b_col < N;
    const float* a_src = A + static_cast<std::int64_t>(m0 + a_row) * K + a_k;
    const float* b_src = B + static_cast<std::int64_t>(b_k) * N + n0 + b_col;

    float acc[kTM] = {};
    for (int k0 = 0; k0 < K; k0 += kBK) {
        As[a_row][a_k] = (a_row_ok && k0 + a_k < K) ? a_src[k0] : 0.0f;
        Bs[b_k][b_col] = (b_col_ok && k0 + b_k < K) ? b_src[static_cast<std::int64_t>(k0) * N] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kBK; ++k) {
            const __nv_bfloat16 b = __float2bfloat16(Bs[k][thread_col]);   // the bug: 8 significant bits
#pragma unroll
            for (int i = 0; i < kTM; ++i) acc[i] = fmaf(As[thread_row * kTM + i][k], __bfloat162float(b), acc[i]);
        }
        __syncthreads();
    }

    const int col = n0 + thread_col;
    if (col >= N) return;
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
        const int row = m0 + thread_row * kTM + i;
        if (row < M) {
            float* c = C + static_cast<std::int64_t>(row) * N + col;
            *c = beta == 0.0f ? alpha * acc[i] : alpha * acc[i] + beta * *c;
        }
    }
}

}   // namespace

void sgemm_4_1d_thread_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                              cudaStream_t stream)
{
    const dim3 grid(wb::ceil_div(N, kBN), wb::ceil_div(M, kBM));
    sgemm_1d_tile_kernel<<<grid, kThreads, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
