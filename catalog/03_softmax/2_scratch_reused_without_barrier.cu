// Catalog, chapter 3, stage 2: a hand-written block reduction whose scratch is reused for the sum without a barrier.
// expect: wrong "compute-sanitizer's racecheck found"
// emulated: crashed "shared memory race"
//
// One block of 128 threads per row, as in the reference, but with the learner's own block reduction:
// warp shuffles, lane 0 of each warp writes its warp's value to scratch[warp], a barrier, then every
// warp reads all the slots. It returns right after those reads, with no second barrier, and the same
// scratch serves the maximum and then the sum. So lane 0 of a fast warp may write its partial sum into
// scratch[w] while a slow warp is still reading scratch[w] for the maximum: a write-after-read race.
// Each warp has a whole strided pass over the row between the two, so on a GPU the maximum is almost
// always read in time and the output is right; compute-sanitizer's racecheck (the grader's pass over
// a stage that passed) and the emulator's shared-memory checker see the missing barrier whatever the
// timing. The chapter's README names this bug: "reusing the scratch array without one".
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / wb::kWarpSize;

/// The maximum (kMax) or the sum of @p v over the block, returned to every thread.
template <bool kMax>
__device__ float block_reduce(float v, float* scratch)
{
    const int lane = threadIdx.x % wb::kWarpSize;
    const int warp = threadIdx.x / wb::kWarpSize;
    v = kMax ? wb::warp_reduce_max(v) : wb::warp_reduce_sum(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < kWarps ? scratch[lane] : (kMax ? -INFINITY : 0.0f);
    v = kMax ? wb::warp_reduce_max(v) : wb::warp_reduce_sum(v);
    return v;   // the bug: no __syncthreads() here, and the next call writes scratch again
}

__global__ void __launch_bounds__(kThreads)
    softmax_block_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t cols)
{
    __shared__ float scratch[kWarps];
    const std::int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float m = -INFINITY;
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, xr[c]);
    m = block_reduce<true>(m, scratch);

    float s = 0.0f;
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) s += __expf(xr[c] - m);
    s = block_reduce<false>(s, scratch);

    const float inv = 1.0f / s;
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) yr[c] = __expf(xr[c] - m) * inv;
}

}   // namespace

void softmax_2_block_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    softmax_block_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, y, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
