// Catalog, chapter 3, stage 3: one warp per row that writes x - max back into its input x.
// expect: wrong "wrote into an input array"
//
// The reference stage 3, except that the sum pass stores the shifted value x - max over x (through a
// const_cast: "the logits are a temporary anyway"), so that the output pass only needs exp(x[c]) * inv.
// The contract gives x as const and says x and y never overlap: a caller that reads its logits again
// (the backward pass of a cross-entropy, a second softmax with a temperature, a check like the
// grader's) finds them changed. Softmax is invariant under a shift of its row, so every output is
// right, and a repeated call on the shifted x gives the same output again: neither the comparison nor
// the check after timing can see it. The grader must compare x after the call with what it uploaded.
// (On an H100 with CUDA 13.0 the extra write of x made it "too slow", x1.94 where x2.00 is asked:
// rejected for its extra pass over memory, not for the write; a faster GPU or a stage without a speed
// target passes it.)
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

__global__ void __launch_bounds__(kThreads)
    softmax_warp_in_place_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t rows,
                                 std::int64_t cols)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;                          // the whole warp leaves together
    float* xr = const_cast<float*>(x) + row * cols;   // the bug: the input is written
    float* yr = y + row * cols;

    float m = -INFINITY;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) m = fmaxf(m, xr[c]);
    m = wb::warp_reduce_max(m);

    float s = 0.0f;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) {
        const float shifted = xr[c] - m;
        xr[c] = shifted;   // each lane rewrites only the columns it reads again below
        s += __expf(shifted);
    }
    s = wb::warp_reduce_sum(s);

    const float inv = 1.0f / s;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) yr[c] = __expf(xr[c]) * inv;
}

}   // namespace

void softmax_3_warp_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    softmax_warp_in_place_kernel<<<blocks, kThreads, 0, stream>>>(x, y, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
