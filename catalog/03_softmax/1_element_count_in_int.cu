// Catalog, chapter 3, stage 1: the element count rows * cols converted to int in the launcher.
// expect: crashed "32 bits"
// emulated: skip "the emulated sizes stay far below 2^31 elements, the GPU grader checks 2,359,301 x 1000"
//
// The reference stage 1 whose launcher sizes the third kernel (one thread per element) the way many
// launchers do: `int n = rows * cols; int blocks = (n + 255) / 256;`. Right for every matrix below 2^31
// elements, which is every matrix of the small cases and of the timing (at most 65536 x 1024). The
// contract allows more, and the grader's case past the int range, 2,359,301 x 1000 on a GPU with 22 GiB
// free (x and y: 17.6 GiB), gets there: n becomes -1,935,666,296, the block count -7,561,195, which as a
// grid size (unsigned) is 4,287,406,101 blocks, past the 2^31 - 1 that gridDim.x allows. The launch of
// kernel 3 is rejected (invalid configuration argument) after kernels 1 and 2 ran. The grader must say
// that this happened past the int range and name a size held in an int. On a GPU without the memory the
// case is skipped and this entry passes.
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
        const float e = __expf(xr[c] - m);
        yr[c] = e;
        s += e;
    }
    row_sum[row] = s;
}

/// Kernel 3: y[i] /= row_sum[row of i], one thread per element (coalesced).
__global__ void normalise_kernel(float* __restrict__ y, const float* __restrict__ row_sum, std::int64_t n,
                                 std::int64_t cols)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] / row_sum[i / cols];
}

}   // namespace

void softmax_1_three_kernels(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    float* workspace = nullptr;
    WB_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&workspace), 2 * rows * sizeof(float), stream));
    float* row_max = workspace;
    float* row_sum = workspace + rows;

    const auto row_blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kThreads));
    row_max_kernel<<<row_blocks, kThreads, 0, stream>>>(x, row_max, rows, cols);
    WB_CHECK_LAUNCH();
    exp_sum_kernel<<<row_blocks, kThreads, 0, stream>>>(x, row_max, y, row_sum, rows, cols);
    WB_CHECK_LAUNCH();
    const int n = static_cast<int>(rows * cols);   // the bug: the element count in 32 bits
    const int blocks = (n + kThreads - 1) / kThreads;
    normalise_kernel<<<blocks, kThreads, 0, stream>>>(y, row_sum, n, cols);
    WB_CHECK_LAUNCH();
    WB_CUDA_CHECK(cudaFreeAsync(workspace, stream));
}

}   // namespace WORKBOOK_TRACK
