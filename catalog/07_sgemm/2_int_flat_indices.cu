// Catalog, chapter 7, stage 2: the textbook indices A[row * K + k], B[k * N + col], C[row * N + col] in int.
// expect: crashed "32 bits"
// emulated: skip "the emulated shapes stay far below 2^31 elements, the GPU grader adds A of 300007 x 7701"
//
// The reference stage 2 written the way most first GEMM kernels are: int row, int col, and every
// index a product of ints. Right as long as no operand holds 2^31 elements, which is every other shape
// the grader uses (the largest, the timed 4096 x 4096, holds 16.8 million). The contract allows M * K
// past 2^31 and says to compute row offsets in 64 bits; the grader's first case past the int range has
// A of 300007 x 7701 (2.31e9 elements; 8.6 GiB of GPU memory in all). Past element 2^31 of A (row
// 278857 on) row * K + k is past 2^31 - 1: the overflow is undefined, and nvcc multiplies row * K in
// 32 bits and sign-extends the product, a negative offset from row 278858 on. Those threads read up to
// 8 GiB before the start of A: an illegal memory access, which the grader names as a 32-bit index.
// On a GPU without the memory the case is skipped and this entry passes.
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
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc = fmaf(A[row * K + k], B[k * N + col], acc);   // the bug: int products
    const int c = row * N + col;
    C[c] = beta == 0.0f ? alpha * acc : alpha * acc + beta * C[c];   // beta == 0: C is never read
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
