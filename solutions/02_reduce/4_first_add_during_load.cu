// Chapter 2, stage 4: first add during load.          (reference solution)
//
// Why it is faster than stage 3: there, half the threads of every block did nothing after loading.
// Here each block covers 2 * 256 elements and each thread adds its two values while loading them,
// so the same work needs half the blocks: half the trees, half the barriers, and twice the bytes
// per thread in flight.
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kPerBlock = 2 * kThreads;

__global__ void reduce_first_add_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    __shared__ float sdata[kThreads];
    const unsigned tid = threadIdx.x;
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * (2 * blockDim.x) + tid;
    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];   // the second half of this block's slice
    sdata[tid] = v;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

}   // namespace

void sum_4_first_add_during_load(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    ch02::reduce_in_passes(in, out, n, workspace, kPerBlock,
                           [&](const float* src, float* dst, std::int64_t count, unsigned blocks) {
                               reduce_first_add_kernel<<<blocks, kThreads, 0, stream>>>(src, dst, count);
                               WB_CHECK_LAUNCH();
                           });
}

}   // namespace WORKBOOK_TRACK
