// Chapter 7, stage 4: each thread computes 8 outputs down one column (1D register tiling).          (reference solution)
//
// Why it is faster than stage 3: stage 3 does two shared-memory loads per FMA, so the shared-memory
// pipe, not the FMA units, sets its speed. Here a thread keeps 8 accumulators for 8 rows of one
// column: per k it loads one value of B into a register and uses it for 8 FMAs (the 8 values of A
// are the same for the whole warp: broadcasts). About 9 shared loads per 8 FMAs instead of 16, and
// the block tile of 64 x 64 outputs halves the global loads per FMA again.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

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
            const float b = Bs[k][thread_col];   // one shared load, reused 8 times from a register
#pragma unroll
            for (int i = 0; i < kTM; ++i) acc[i] = fmaf(As[thread_row * kTM + i][k], b, acc[i]);
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
