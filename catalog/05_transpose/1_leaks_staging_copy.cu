// Catalog, chapter 5, stage 1: a staging copy of the input, allocated on every call and never freed.
// expect: wrong "leaks device memory"
//
// cudaMalloc in the launcher without its cudaFree: the results are right and the grader's inputs are
// small enough not to run out, but device memory grows with every call.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockX = 32;   // one warp along a row of the input
constexpr int kBlockY = 8;

__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                       std::int64_t cols)
{
    const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * kBlockX + threadIdx.x;   // input column
    const std::int64_t r = static_cast<std::int64_t>(blockIdx.y) * kBlockY + threadIdx.y;   // input row
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];   // read coalesced, write strided
}

}   // namespace

void transpose_1_naive(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kBlockX)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kBlockY)));
    // the bug: a staging copy of the input that is never freed
    float* staged = nullptr;
    WB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&staged), rows * cols * sizeof(float)));
    WB_CUDA_CHECK(cudaMemcpyAsync(staged, in, rows * cols * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    transpose_naive_kernel<<<grid, block, 0, stream>>>(staged, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
