// expect: passed
//
// Chapter 3, stage 1, in the style of the interview collections (Tongkaio/CUDA_Kernel_Samples): every
// kernel is one thread per element, and the row statistics are built with atomics instead of one
// thread walking a row. Kernel 0 sets each row's maximum to -inf and its sum to 0 (the workspace comes
// from cudaMallocAsync and is set on every call). Kernel 1 folds each element into its row's maximum
// with a float atomicMax made of the integer atomics: a float without its sign bit orders like its
// bits as a signed int (atomicMax), one with the sign bit (-0.0 and -inf included) orders backwards
// like its bits as an unsigned int (atomicMin), and each side of the test wins against the other as
// it must. Kernel 2 writes e = exp(x - max) to y and atomicAdds it into the row's sum; kernel 3
// divides. A right kernel in another style; stage 1 has no speed target: the grader must pass it.
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

/// A float maximum from integer atomics (no NaN in this chapter's inputs).
__device__ __forceinline__ void atomic_max_float(float* address, float value)
{
    if (__float_as_uint(value) >> 31 == 0) {
        atomicMax(reinterpret_cast<int*>(address), __float_as_int(value));   // +0 and up: int order is float order
    } else {
        atomicMin(reinterpret_cast<unsigned*>(address), __float_as_uint(value));   // sign bit set: reversed order
    }
}

__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ row_max, std::int64_t n,
                               std::int64_t cols)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) atomic_max_float(&row_max[i / cols], x[i]);
}

__global__ void exp_sum_kernel(const float* __restrict__ x, const float* __restrict__ row_max, float* __restrict__ y,
                               float* __restrict__ row_sum, std::int64_t n, std::int64_t cols)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const std::int64_t row = i / cols;
    const float e = __expf(x[i] - row_max[row]);
    y[i] = e;
    atomicAdd(&row_sum[row], e);
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
