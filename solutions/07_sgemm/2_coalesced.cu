// Chapter 7, stage 2: one thread per output element, threadIdx.x along the columns.          (reference solution)
//
// Why it is faster than stage 1: consecutive threads now own consecutive columns. For each k a warp
// reads one element of A (the same address for all 32 threads: one broadcast) and 32 consecutive
// floats of a row of B (one 128-byte transaction instead of 32), and its stores to C are 32
// consecutive floats. Same arithmetic, several times fewer memory transactions; the L1 cache now
// keeps the A row and the B rows a block shares.
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
    *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;   // beta == 0: C is never read
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
