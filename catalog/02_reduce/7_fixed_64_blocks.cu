// expect: too-slow "your grid is 64 blocks for 132 SMs: 52% of the SMs have no work"
// emulated: passed ""
//
// Chapter 2, stage 7, as the classic reduction samples write it: many elements per thread with a
// grid-stride loop and a tree per block, but a grid fixed at 64 blocks of 256 threads whatever the
// GPU. It is right for every n (the emulator must pass it). On an H100 with 132 SMs, 68 SMs get no
// block at all and the others hold one block of 256 threads where they could hold eight: far slower
// than stage 6. The first sentence of the "too slow" verdict must say that the grid leaves SMs idle
// (the phrase above is what an H100 prints; on another GPU the counts differ).
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr unsigned kBlocks = 64;   // fixed, as in the samples: the cause of the verdict

__global__ void __launch_bounds__(kThreads)
    sum_fixed_grid_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    __shared__ float sums[kThreads];
    const int tid = threadIdx.x;
    float acc = 0.0f;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + tid; i < n;
         i += static_cast<std::int64_t>(gridDim.x) * kThreads) {
        acc += in[i];
    }
    sums[tid] = acc;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {   // sequential addressing, a barrier per step
        if (tid < half) sums[tid] += sums[tid + half];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sums[0];
}

}   // namespace

void sum_7_many_per_thread(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    sum_fixed_grid_kernel<<<kBlocks, kThreads, 0, stream>>>(in, workspace, n);   // 64 partial sums
    WB_CHECK_LAUNCH();
    sum_fixed_grid_kernel<<<1, kThreads, 0, stream>>>(workspace, out, kBlocks);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
