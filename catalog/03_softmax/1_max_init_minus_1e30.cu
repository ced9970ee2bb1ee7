// Catalog, chapter 3, stage 1: the row maximum starts at -1e30 instead of -INFINITY.
// expect: wrong "start the maximum at -INFINITY"
//
// The reference stage 1 with one change. -1e30 is below every value most tests hold, so the row
// maximum comes out right for random values, huge values and even values near -1e30 (their maximum is
// -1e30 itself). A row whose values all lie below -1e30 keeps max = -1e30: every exp(x - max)
// underflows to 0 and the row becomes 0 / 0 = NaN. A finite start is right only if it is -FLT_MAX.
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
    float m = -1e30f;   // the bug: a finite start, above the most negative floats
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
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
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
