// Catalog, chapter 5, stage 1: the sizes passed to the kernel as int, so the indices are int products.
// expect: crashed "32 bits"
// emulated: skip "the emulated shapes stay far below 2^31 elements, the GPU grader transposes 40006 x 62498"
//
// The reference stage 1 with the kernel signature of most first transposes: `int rows, int cols`,
// and `int r, c`. The launcher narrows the sizes on the reasoning that the contract keeps each side
// at most 500000, which is true; but the flattened indices `r * cols + c` and `c * rows + r` are then
// int products, and the contract lets them pass 2^31. Every small shape, 16384 x 16384 (2^28
// elements) and the timed 8192 x 12288 stay below 2^31, so they all pass. The case past the int
// range (40006 x 62498, 2.5e9 elements, 18.6 GiB for both arrays, needs about 23 GiB free) makes the
// index of every input element past 2^31 - 1 (from input row 34360 on) wrap to a negative int, down
// to -2^31: the load reads 7.2 to 8.6 GB before `in`, an illegal memory access that the grader must
// explain as a 32-bit index. On a GPU without the memory the case is skipped and this entry passes.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                                       int cols)   // the bug: each side fits in an int, their product does not
{
    const int c = blockIdx.x * kBlockX + threadIdx.x;                 // input column
    const int r = blockIdx.y * kBlockY + threadIdx.y;                 // input row
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];   // int products: wrap past 2^31 - 1
}

}   // namespace

void transpose_1_naive(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kBlockX)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kBlockY)));
    // At most 500000 each (the contract): "safe" to narrow.
    transpose_naive_kernel<<<grid, block, 0, stream>>>(in, out, static_cast<int>(rows), static_cast<int>(cols));
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
