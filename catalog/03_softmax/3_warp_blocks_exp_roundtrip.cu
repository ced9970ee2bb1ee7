// expect: too-slow "blocks of 32 threads, and an SM holds at most 32 blocks"
// emulated: passed ""
//
// Chapter 3, stage 3, as many tutorials write a warp-per-row softmax: one warp per row, shuffle
// reductions, but launched as one block of 32 threads per row, and with the exponentials written
// to y and read back for the division (a third pass over memory) instead of being recomputed. The
// results are right (the emulator must pass it). On an H100 an SM holds at most 32 blocks, so 32-
// thread blocks fill half of its 2048 threads (theoretical occupancy 50%, reference stage 3 100%),
// and y is read once more. The first sentence of the "too slow" verdict must name the block size;
// the extra pass over y is what `make profile-chapter 3 STAGE=3` shows (DRAM bytes).
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

__global__ void __launch_bounds__(wb::kWarpSize)
    softmax_one_warp_block_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t cols)
{
    const std::int64_t row = blockIdx.x;   // one block, one warp, one row
    const int lane = threadIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float m = -INFINITY;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) m = fmaxf(m, xr[c]);
    m = wb::warp_reduce_max(m);

    float s = 0.0f;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) {
        const float e = __expf(xr[c] - m);
        yr[c] = e;   // kept in memory for the last pass
        s += e;
    }
    s = wb::warp_reduce_sum(s);

    const float inv = 1.0f / s;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) yr[c] *= inv;   // each lane re-reads its own writes
}

}   // namespace

void softmax_3_warp_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    softmax_one_warp_block_kernel<<<static_cast<unsigned>(rows), wb::kWarpSize, 0, stream>>>(x, y, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
