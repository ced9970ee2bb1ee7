// Catalog, chapter 3, stage 1: the workspace allocated as 2 * rows bytes for 2 * rows floats.
// expect: crashed "illegal memory access"
// emulated: crashed "wrote past the end of a"
//
// The reference stage 1 with `sizeof(float)` left out of the cudaMallocAsync size, the most common slip
// of a first CUDA program: the row maxima and sums need 8 * rows bytes and get 2 * rows, so kernels 1
// and 2 write (and kernels 2 and 3 read) up to 6 * rows bytes past the end of the allocation. No output
// of the grader's is there, so every result is right; in a real program those bytes belong to other
// allocations of the same pool, which is silent corruption. The grader's buffers have guard bytes, but
// this allocation is the learner's own: on a GPU only compute-sanitizer's memcheck (run on the first
// small cases of a stage that passed) can see the writes, and the CPU emulator, whose device
// allocations are fenced, must stop the kernel. (On an H100: memcheck reported 67 errors, the first
// an invalid write in kernel 1.) On a GPU with the memory for the grader's case of 4,456,453 rows
// (past 2^32 elements), the writes reach 27 MB past the 9 MB allocation, beyond what the memory pool
// has mapped, and the kernel stops with an illegal memory access (H100 80GB): the verdict there is
// "crashed". On a smaller GPU that case is skipped and memcheck finds the writes as before.
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

/// Kernel 2: y = exp(x - max), row_sum[r] = sum of the row of y, one thread per row.
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
    float* workspace = nullptr;
    // The bug: a size in elements where cudaMallocAsync wants bytes (2 * rows * sizeof(float)).
    WB_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&workspace), 2 * rows, stream));
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
