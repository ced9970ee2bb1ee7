// Catalog, chapter 7, stage 2: the naive kernel handed in as stage 2 (threadIdx.x still down the rows).
// expect: too-slow "too slow"
// emulated: passed "uncoalesced (counted on the CPU emulator)"
//
// Right values, wrong idea: the 32 lanes of a warp own 32 consecutive rows of C, so their loads of A
// and their stores to C land in 32 different rows: 32 sectors per request. On a GPU it runs at the
// speed of stage 1, several times below the stage. On the CPU emulator the counters see the stores and
// loads: several times the sectors per 128 bytes of reference stage 2, so the stage passes with the
// advice "uncoalesced".
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

void sgemm_2_coalesced(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream)
{
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid(wb::ceil_div(M, kBlockX), wb::ceil_div(N, kBlockY));
    sgemm_naive_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
