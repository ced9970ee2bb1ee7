// Catalog, chapter 3, stage 1: the element index of the normalising kernel computed in 32 bits (unsigned).
// expect: wrong "two unsigned ints"
// emulated: skip "the emulated sizes stay far below 2^32 elements, the GPU grader checks 4,456,453 x 1000"
//
// The reference stage 1 with `const std::int64_t i = blockIdx.x * blockDim.x + threadIdx.x;` in its
// third kernel, the one with a thread per element. The product of two unsigned ints wraps at 2^32
// before it is widened, so the thread of element 2^32 + j divides element j by its row's sum a second
// time, and nobody divides the elements from 2^32 on. Kernels 1 and 2 (a thread per row) are right.
// The case of 2,359,301 x 1000 (2.4e9 elements) passes; the grader's case of 4,456,453 x 1000 (4.46e9
// elements, x and y 33 GiB, run where the GPU has 37 GiB free) finds the first 161 million elements and
// those past 2^32 wrong and the ones between right, and must say that the index wraps at 2^32. On a GPU
// without the memory for it that case is skipped and this entry passes.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

/// Kernel 1: row_max[r] = max_c x[r][c], one thread per row.
__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ row_max, std::int64_t rows,
                               std::int64_t cols)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float m = -INFINITY;
    for (std::int64_t c = 0; c < cols; ++c) m = fmaxf(m, xr[c]);
    row_max[row] = m;
}

/// Kernel 2: y[r][c] = exp(x[r][c] - max_r), row_sum[r] = sum_c y[r][c], one thread per row.
__global__ void exp_sum_kernel(const float* __restrict__ x, const float* __restrict__ row_max, float* __restrict__ y,
                               float* __restrict__ row_sum, std::int64_t rows, std::int64_t cols)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    const float m = row_max[row];
    float s = 0.0f;
    for (std::int64_t c = 0; c < cols; ++c) {
        const float e = __expf(xr[c] - m);   // <= 1: the maximum was subtracted, nothing can overflow
        yr[c] = e;
        s += e;
    }
    row_sum[row] = s;
}

/// Kernel 3: y[i] /= row_sum[row of i], one thread per element (coalesced).
__global__ void normalise_kernel(float* __restrict__ y, const float* __restrict__ row_sum, std::int64_t n,
                                 std::int64_t cols)
{
    const std::int64_t i = blockIdx.x * blockDim.x + threadIdx.x;   // the bug: the product wraps at 2^32
    if (i < n) y[i] = y[i] / row_sum[i / cols];
}

}   // namespace

void softmax_1_three_kernels(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    // Workspace for the statistics: stream-ordered, so it lives exactly as long as the kernels need it.
    float* workspace = nullptr;
    WB_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&workspace), 2 * rows * sizeof(float), stream));
    float* row_max = workspace;
    float* row_sum = workspace + rows;

    const auto row_blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kThreads));
    row_max_kernel<<<row_blocks, kThreads, 0, stream>>>(x, row_max, rows, cols);
    WB_CHECK_LAUNCH();
    exp_sum_kernel<<<row_blocks, kThreads, 0, stream>>>(x, row_max, y, row_sum, rows, cols);
    WB_CHECK_LAUNCH();
    const std::int64_t n = rows * cols;
    const auto element_blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    normalise_kernel<<<element_blocks, kThreads, 0, stream>>>(y, row_sum, n, cols);
    WB_CHECK_LAUNCH();
    WB_CUDA_CHECK(cudaFreeAsync(workspace, stream));
}

}   // namespace WORKBOOK_TRACK
