// Catalog, chapter 3, stage 2: the row offset row * cols multiplied in int (32 bits).
// expect: crashed "32 bits"
// emulated: skip "the emulated sizes stay far below 2^31 elements, the GPU grader checks 2,359,301 x 1000"
//
// The reference stage 2 with the kernel signature many first softmax kernels have: `int cols`, and the
// row taken as `int row = blockIdx.x`. Then `x + row * cols` multiplies two ints, and the product wraps
// once it passes 2^31 - 1. Every matrix of the small cases (at most 65536 x 1024 = 2^26 elements, the
// timed one) keeps it far below that, so the stage passes them all, while the contract allows
// rows * cols past 2^31 and says to index with std::int64_t. Only the grader's case past the int range,
// 2,359,301 x 1000 on a GPU with 22 GiB free (x and y: 17.6 GiB), reaches it: from row 2,147,484 on the
// offset is negative (about -2^31, x minus 8 GiB, an address before x where nothing is mapped) and the
// first load of such a row faults. The grader must name the 32-bit index. On a GPU without the memory
// the case is skipped and this entry passes.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;   // 4 warps per row: enough for rows of a few thousand elements

__global__ void __launch_bounds__(kThreads)
    softmax_block_kernel(const float* __restrict__ x, float* __restrict__ y, int cols)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];   // one slot per warp for the block reductions
    const int row = blockIdx.x;
    const float* xr = x + row * cols;   // the bug: int times int, computed in 32 bits
    float* yr = y + row * cols;

    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, xr[c]);
    m = wb::block_reduce_max<kThreads>(m, scratch);   // every thread gets the row maximum

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += kThreads) s += __expf(xr[c] - m);
    s = wb::block_reduce_sum<kThreads>(s, scratch);

    const float inv = 1.0f / s;   // s >= 1: the maximum itself contributes exp(0)
    for (int c = threadIdx.x; c < cols; c += kThreads) yr[c] = __expf(xr[c] - m) * inv;
}

}   // namespace

void softmax_2_block_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    softmax_block_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, y, static_cast<int>(cols));
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
