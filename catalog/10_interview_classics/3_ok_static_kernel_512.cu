// expect: passed
//
// Chapter 10, stage 3: a right one-block dot product in another style.
// 512 threads instead of the reference's 1024, a warp-shuffle reduction written out by hand instead of
// wb::block_reduce_sum, and the kernel a static function outside namespace WORKBOOK_TRACK (which
// common/track.hpp allows). Two checks must let it through: the launch ledger's rule that a launcher
// runs its own kernels (a kernel with no namespace is the learner's, not a library's) and stage 3's
// rule of one block.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace {
constexpr int kDotThreads = 512;
}   // namespace

static __global__ void __launch_bounds__(kDotThreads)
    dot_in_one_block(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, std::int64_t n)
{
    __shared__ float warp_sums[kDotThreads / 32];
    float v = 0.0f;
    for (std::int64_t i = threadIdx.x; i < n; i += kDotThreads) v = fmaf(x[i], y[i], v);
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < kDotThreads / 32 ? warp_sums[lane] : 0.0f;
        for (int offset = 8; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0) out[0] = v;
    }
}

namespace WORKBOOK_TRACK {

void dot_3_one_block(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream)
{
    dot_in_one_block<<<1, kDotThreads, 0, stream>>>(x, y, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
