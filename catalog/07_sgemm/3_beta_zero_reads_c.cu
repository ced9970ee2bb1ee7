// Catalog, chapter 7, stage 3: the shared-memory tiles, with C read even when beta == 0.
// expect: wrong "beta = 0 must not read C"
//
// alpha * acc + beta * C looks harmless for beta = 0, but the contract makes C write-only then: it may
// hold NaN (the grader's first case fills it with NaN), and 0 * NaN is NaN. On a GPU the NaN that comes
// out is the hardware's canonical one, on a CPU it keeps the poison's bits, so the output looks either
// like a computed NaN or like an output never written. The grader must name the read of C instead.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;   // the block computes a kTile x kTile tile of C and walks K in steps of kTile

__global__ void __launch_bounds__(kTile* kTile)
    sgemm_shared_tiles_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                              const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ float As[kTile][kTile];   // As[row in tile][k in tile]
    __shared__ float Bs[kTile][kTile];   // Bs[k in tile][column in tile]
    const int tx = threadIdx.x;          // column inside the tile: consecutive lanes, consecutive columns
    const int ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty;
    const int col = blockIdx.x * kTile + tx;
    const float* a_row = A + static_cast<std::int64_t>(row) * K;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += kTile) {
        // Each thread loads one element of each tile; outside the matrices it loads 0, so the
        // products below need no bounds test.
        As[ty][tx] = (row < M && k0 + tx < K) ? a_row[k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[static_cast<std::int64_t>(k0 + ty) * N + col] : 0.0f;
        __syncthreads();   // the tiles are complete
#pragma unroll
        for (int k = 0; k < kTile; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);   // As: broadcast, Bs: 32 banks
        __syncthreads();   // everyone is done reading before the next tiles overwrite them
    }
    if (row < M && col < N) {
        float* c = C + static_cast<std::int64_t>(row) * N + col;
        *c = alpha * acc + beta * *c;   // the bug: C is read (and multiplied by 0) when beta == 0
    }
}

}   // namespace

void sgemm_3_shared_memory_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                                  float* C, cudaStream_t stream)
{
    const dim3 block(kTile, kTile);
    const dim3 grid(wb::ceil_div(N, kTile), wb::ceil_div(M, kTile));
    sgemm_shared_tiles_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
