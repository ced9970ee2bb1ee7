// Catalog, chapter 3, stage 1: the row statistics kept with plain loads and stores instead of atomics.
// expect: wrong "elements are wrong"
// emulated: crashed "of the same launch stored at"
//
// The twin of 1_ok_atomic_row_statistics with the atomics taken out: kernel 1 folds each element into its
// row's maximum with `if (x > max) max = x`, kernel 2 adds exp(x - max) into the row's sum with `+=`. On
// a CPU with one thread that is the textbook loop; with one thread per element, the threads of a warp
// read the same old maximum and all store, the last store winning whatever its value, and the sums lose
// updates. An H200 gets the maximum and the sum wrong from the first case on (71 rows of 2). On the CPU
// emulator the threads of a block run one after another between barriers, so within a block the loop
// is right; a row that spans two blocks is read by the second after the first stored into it, which the
// race checker between blocks reports with both lines. The fix: atomics (the ok twin), or one block or
// warp per row reducing in registers and shared memory (stages 2 and 3).
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void init_stats_kernel(float* __restrict__ row_max, float* __restrict__ row_sum, std::int64_t rows)
{
    const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    row_max[r] = -INFINITY;
    row_sum[r] = 0.0f;
}

/// The bug: a maximum and a sum kept with plain loads and stores, as on a CPU.
__device__ __forceinline__ void racy_max(float* address, float value)
{
    if (value > *address) *address = value;
}

__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ row_max, std::int64_t n,
                               std::int64_t cols)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) racy_max(&row_max[i / cols], x[i]);
}

__global__ void exp_sum_kernel(const float* __restrict__ x, const float* __restrict__ row_max, float* __restrict__ y,
                               float* __restrict__ row_sum, std::int64_t n, std::int64_t cols)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const std::int64_t row = i / cols;
    const float e = __expf(x[i] - row_max[row]);
    y[i] = e;
    row_sum[row] += e;
}

__global__ void normalise_kernel(float* __restrict__ y, const float* __restrict__ row_sum, std::int64_t n,
                                 std::int64_t cols)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] / row_sum[i / cols];
}

}   // namespace

void softmax_1_three_kernels(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    float* workspace = nullptr;
    WB_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&workspace), 2 * rows * sizeof(float), stream));
    float* row_max = workspace;
    float* row_sum = workspace + rows;
    const std::int64_t n = rows * cols;
    const auto row_blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kThreads));
    const auto element_blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    init_stats_kernel<<<row_blocks, kThreads, 0, stream>>>(row_max, row_sum, rows);
    WB_CHECK_LAUNCH();
    row_max_kernel<<<element_blocks, kThreads, 0, stream>>>(x, row_max, n, cols);
    WB_CHECK_LAUNCH();
    exp_sum_kernel<<<element_blocks, kThreads, 0, stream>>>(x, row_max, y, row_sum, n, cols);
    WB_CHECK_LAUNCH();
    normalise_kernel<<<element_blocks, kThreads, 0, stream>>>(y, row_sum, n, cols);
    WB_CHECK_LAUNCH();
    WB_CUDA_CHECK(cudaFreeAsync(workspace, stream));
}

}   // namespace WORKBOOK_TRACK
