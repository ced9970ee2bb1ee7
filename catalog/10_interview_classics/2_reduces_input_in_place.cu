// Catalog, chapter 10, stage 2: the block tree run in place in the input array, which is const.
// expect: wrong "wrote into an input array"
//
// The reduction of many textbooks and slide decks, before shared memory is introduced: each block
// halves its 256-element segment of the input in global memory (`in[i] += in[i + s]`, a barrier
// per step), and thread 0 adds the segment's first element, now its sum, into out[0] with one
// atomicAdd. The const is cast away to make it compile. The first call is right; it leaves partial
// sums in the input, so every later call on the same input adds them up again. The bug is the write
// into the input, and the verdict must name it: a learner told "state left behind by the previous
// call" looks for a static variable or a missing memset, which this launcher does not have.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) in_place_tree_kernel(float* data, float* __restrict__ out, std::int64_t n)
{
    const std::int64_t start = static_cast<std::int64_t>(blockIdx.x) * kThreads;
    const std::int64_t i = start + threadIdx.x;
    for (int s = kThreads / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s && i + s < n) data[i] += data[i + s];   // the bug: writes into the input
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, data[start]);
}

}   // namespace

void sum_2_block_then_atomic(const float* in, float* out, std::int64_t n, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    in_place_tree_kernel<<<blocks, kThreads, 0, stream>>>(const_cast<float*>(in), out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
