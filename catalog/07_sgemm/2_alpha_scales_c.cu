// Catalog, chapter 7, stage 2: alpha factored out of the whole epilogue, alpha * (acc + beta * C).
// expect: wrong "alpha scales beta"
//
// The reference stage 2 with `alpha * (acc + beta * *c)`: one multiply fewer when the sum is written
// this way, and with alpha = 1 (the usual benchmark) or beta = 0 it is the same. The contract is
// alpha * (A B) + beta * C: every case with alpha != 1 and beta != 0 has beta * C scaled by alpha once too
// often. The results are exactly those of beta replaced by alpha * beta, and the grader must say that
// alpha scales beta * C too.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockX = 32;   // along the columns of C: contiguous in memory
constexpr int kBlockY = 16;   // along the rows

__global__ void sgemm_coalesced_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                       const float* __restrict__ B, float beta, float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    const float* a = A + static_cast<std::int64_t>(row) * K;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc = fmaf(a[k], B[static_cast<std::int64_t>(k) * N + col], acc);
    float* c = C + static_cast<std::int64_t>(row) * N + col;
    *c = beta == 0.0f ? alpha * acc : alpha * (acc + beta * *c);   // the bug: alpha scales beta * C too
}

}   // namespace

void sgemm_2_coalesced(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream)
{
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid(wb::ceil_div(N, kBlockX), wb::ceil_div(M, kBlockY));
    sgemm_coalesced_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
