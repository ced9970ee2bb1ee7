// Chapter 7, stage 1: one thread per output element, threadIdx.x down the rows.          (reference solution)
//
// The baseline of the chapter. Every thread reads a whole row of A and a whole column of B from
// global memory (2K loads for 2K flops), and the 32 threads of a warp own 32 consecutive *rows*:
// their loads of A are 32 separate transactions and their stores to C hit 32 different rows. The
// next stage swaps two lines and is several times faster.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockX = 32;   // along the rows of C (the slow direction in memory: the mistake)
constexpr int kBlockY = 16;   // along the columns

__global__ void sgemm_naive_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                   const float* __restrict__ B, float beta, float* __restrict__ C)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    const float* a = A + static_cast<std::int64_t>(row) * K;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc = fmaf(a[k], B[static_cast<std::int64_t>(k) * N + col], acc);
    float* c = C + static_cast<std::int64_t>(row) * N + col;
    *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;   // beta == 0: C is never read
}

}   // namespace

void sgemm_1_naive(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                   cudaStream_t stream)
{
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid(wb::ceil_div(M, kBlockX), wb::ceil_div(N, kBlockY));
    sgemm_naive_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
