// Catalog, chapter 7, stage 2: C = alpha A B, with the "+ beta C" of the contract left out.
// expect: wrong "C is left out"
//
// The usual benchmark runs with beta = 0, where this is right, and so is the grader's first case. The
// second case (1 x 1 x 1, beta = -0.75) must fail, and the report names beta.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

__global__ void sgemm_no_beta_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                     const float* __restrict__ B, float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc = fmaf(A[static_cast<std::int64_t>(row) * K + k], B[static_cast<std::int64_t>(k) * N + col], acc);
    }
    C[static_cast<std::int64_t>(row) * N + col] = alpha * acc;   // the bug: beta * C is never added
}

}   // namespace

void sgemm_2_coalesced(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream)
{
    (void)beta;
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid(wb::ceil_div(N, kBlockX), wb::ceil_div(M, kBlockY));
    sgemm_no_beta_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, C);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
