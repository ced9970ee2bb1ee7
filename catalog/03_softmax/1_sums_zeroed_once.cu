// Catalog, chapter 3, stage 1: a workspace kept between calls whose atomic row sums are zeroed only when it is allocated.
// expect: wrong "elements are wrong"
//
// To avoid an allocation per call, the launcher keeps its workspace in a static pointer and grows it
// when a call has more rows (one buffer kept for reuse is allowed). Kernel 2 is element-parallel and
// adds each exponential into its row's sum with atomicAdd, which needs the sums at 0 first, and the
// learner zeroes them with cudaMemsetAsync right after the allocation, so only then. The first call
// is right; every later call that reuses the buffer starts its sums from the previous call's. A
// kernel that is right on its first call only is the typical "state kept between calls" bug: the
// grader calls a launcher many times and must fail it.
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

/// Kernel 2, one thread per element: y = exp(x - max), added into its row's sum.
__global__ void exp_sum_kernel(const float* __restrict__ x, const float* __restrict__ row_max, float* __restrict__ y,
                               float* __restrict__ row_sum, std::int64_t n, std::int64_t cols)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const std::int64_t row = i / cols;
    const float e = __expf(x[i] - row_max[row]);
    y[i] = e;
    atomicAdd(&row_sum[row], e);   // assumes row_sum[row] started at 0
}

/// Kernel 3: y[i] /= row_sum[row of i], one thread per element.
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
    static float* workspace = nullptr;   // kept for the next call
    static std::int64_t capacity = 0;    // rows it holds
    if (rows > capacity) {
        if (workspace) WB_CUDA_CHECK(cudaFree(workspace));
        WB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&workspace), 2 * rows * sizeof(float)));
        // The bug: the sums are set to 0 here, when the buffer is new, and never again.
        WB_CUDA_CHECK(cudaMemsetAsync(workspace, 0, 2 * rows * sizeof(float), stream));
        capacity = rows;
    }
    float* row_max = workspace;
    float* row_sum = workspace + capacity;

    const std::int64_t n = rows * cols;
    const auto row_blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kThreads));
    const auto element_blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(n, kThreads));
    row_max_kernel<<<row_blocks, kThreads, 0, stream>>>(x, row_max, rows, cols);
    WB_CHECK_LAUNCH();
    exp_sum_kernel<<<element_blocks, kThreads, 0, stream>>>(x, row_max, y, row_sum, n, cols);
    WB_CHECK_LAUNCH();
    normalise_kernel<<<element_blocks, kThreads, 0, stream>>>(y, row_sum, n, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
