// Catalog, chapter 2, stage 3: stage 2's strided index handed in as stage 3 (bank conflicts kept).
// expect: too-slow "too slow"
// emulated: passed "bank conflicts"
//
// Right sums, wrong idea: thread tid still works on index 2 * s * tid, so the lanes of a warp touch
// shared-memory words 2s apart and meet in the same banks (2- to 8-way conflicts). On a GPU it runs at
// the speed of stage 2, below what sequential addressing gains. On the CPU emulator the counters see
// the wavefronts: several per request where reference stage 3 needs one, so the stage passes with the
// advice "bank conflicts".
#include "02_reduce/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void reduce_strided_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n)
{
    __shared__ float sdata[kThreads];
    const unsigned tid = threadIdx.x;
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;   // bank (2*s*tid) % 32: lanes 2s words apart, conflicts from s = 1
        if (index < blockDim.x) sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

}   // namespace

void sum_3_sequential_addressing(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    ch02::reduce_in_passes(in, out, n, workspace, kThreads,
                           [&](const float* src, float* dst, std::int64_t count, unsigned blocks) {
                               reduce_strided_kernel<<<blocks, kThreads, 0, stream>>>(src, dst, count);
                               WB_CHECK_LAUNCH();
                           });
}

}   // namespace WORKBOOK_TRACK
