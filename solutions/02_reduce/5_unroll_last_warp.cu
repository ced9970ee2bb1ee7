// Chapter 2, stage 5: unroll the last warp, with shuffles.          (reference solution)
//
// Why it is faster than stage 4: once 64 values are left, only warp 0 has work, yet each of the last
// six tree steps still cost a loop test, a shared-memory round trip and a __syncthreads() for the
// whole block. Here the shared-memory tree stops at 64 values and warp 0 finishes in registers with
// __shfl_down_sync: five steps, no barrier, no shared memory.
//
// The shuffle (or __syncwarp() between shared-memory steps) is what makes this correct. The classic
// version of this trick wrote the last steps through a `volatile float*` with no synchronisation at
// all, counting on the 32 lanes of a warp to execute in lock-step. Since Volta, lanes of a warp may
// be scheduled independently, so that code is a data race: see the chapter README.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kPerBlock = 2 * kThreads;
constexpr unsigned kFullMask = 0xffffffffu;   // all 32 lanes take part in each shuffle

__global__ void reduce_last_warp_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    __shared__ float sdata[kThreads];
    const unsigned tid = threadIdx.x;
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * (2 * blockDim.x) + tid;
    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {   // the block-wide steps: 128, 64 (for 256 threads)
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {   // warp 0 as a whole: all 32 lanes reach every shuffle below
        v = sdata[tid] + sdata[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2) {
            v += __shfl_down_sync(kFullMask, v, offset);   // lane l adds lane l + offset's value
        }
        if (tid == 0) partial[blockIdx.x] = v;
    }
}

}   // namespace

void sum_5_unroll_last_warp(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    ch02::reduce_in_passes(in, out, n, workspace, kPerBlock,
                           [&](const float* src, float* dst, std::int64_t count, unsigned blocks) {
                               reduce_last_warp_kernel<<<blocks, kThreads, 0, stream>>>(src, dst, count);
                               WB_CHECK_LAUNCH();
                           });
}

}   // namespace WORKBOOK_TRACK
