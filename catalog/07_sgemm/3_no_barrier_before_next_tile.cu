// Catalog, chapter 7, stage 3: the tile loop without its second barrier.
// expect: wrong "elements are wrong | racecheck found"
// emulated: crashed "shared memory race"
//
// The barrier after the products is gone, so a fast thread starts the next iteration and stores the
// next tiles of A and B over elements that slower threads of its block still multiply with. Whether
// the result shows it depends on how far the warps drift apart: on an H100 the 1000 x 999 x 1001 case
// came out wrong; where every output is right, the grader's racecheck run reports the
// write-after-read hazard. The emulator's
// shared-memory checker sees the store of the next tile over a word another thread read in the same
// barrier interval.
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
        // the bug: no __syncthreads() before the next iteration overwrites the tiles
    }
    if (row < M && col < N) {
        float* c = C + static_cast<std::int64_t>(row) * N + col;
        *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
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
