// Catalog, chapter 7, stage 3: the tiles of A and B kept in shared memory as __half, to fit twice as many.
// expect: wrong "rounded to 11 significant bits"
// emulated: wrong "rounded to 11 significant bits"
//
// The reference stage 3 with `__shared__ __half As[kTile][kTile], Bs[kTile][kTile]`: half the shared
// memory per tile, "and the tensor-core GEMMs read fp16 anyway". Every element of A and B is rounded to
// 11 significant bits on its way in, while the contract multiplies the float inputs (24 bits): each
// product is off by up to 2^-11 of its size, far more than fp32 accumulation allows, and every case
// fails. The results are those of the right arithmetic on rounded inputs, so the grader must find that
// out (the product of A and B rounded to 11 significant bits matches) and say so.
#include "07_sgemm/stages.cuh"
#include "common/primitives.cuh"

#include <cuda_fp16.h>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kTile = 32;   // the block computes a kTile x kTile tile of C and walks K in steps of kTile

__global__ void __launch_bounds__(kTile* kTile)
    sgemm_shared_tiles_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                              const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ __half As[kTile][kTile];   // the bug: the tiles in fp16
    __shared__ __half Bs[kTile][kTile];
    const int tx = threadIdx.x;   // column inside the tile: consecutive lanes, consecutive columns
    const int ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty;
    const int col = blockIdx.x * kTile + tx;
    const float* a_row = A + static_cast<std::int64_t>(row) * K;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += kTile) {
        // Each thread loads one element of each tile; outside the matrices it loads 0, so the
        // products below need no bounds test.
        As[ty][tx] = __float2half((row < M && k0 + tx < K) ? a_row[k0 + tx] : 0.0f);
        Bs[ty][tx] = __float2half((k0 + ty < K && col < N) ? B[static_cast<std::int64_t>(k0 + ty) * N + col] : 0.0f);
        __syncthreads();   // the tiles are complete
#pragma unroll
        for (int k = 0; k < kTile; ++k) acc = fmaf(__half2float(As[ty][k]), __half2float(Bs[k][tx]), acc);
        __syncthreads();   // everyone is done reading before the next tiles overwrite them
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
