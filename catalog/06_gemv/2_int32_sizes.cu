// Catalog, chapter 6, stage 2: M and K passed to the kernel as int, so the row offset is an int product.
// expect: crashed "32 bits"
// emulated: skip "the emulated shapes stay far below 2^31 elements, the GPU grader runs 17825795 x 132"
//
// The reference stage 2 with `int M, int K` in the kernel and `int row`: the contract keeps both
// sizes at most 2^26, so the launcher narrows them without a second thought. But the start of row i,
// `A + row * K`, is then an int product, and the contract lets M * K pass 2^31. Every small shape,
// 1048577 x 3 and the timed 65536 x 4096 (2^28 elements) stay below it, so they all pass. In the case
// past the int range (17825795 x 132, 8.8 GiB, needs about 13 GiB free), row * K wraps to about -2^31
// from row 16268816 on (row 16268815 starts below 2^31, and the pointer reaches its elements past it
// in 64 bits: that row stays right): the warp reads 7.8 to 8.6 GB before A, an illegal memory access
// that the grader must explain as a 32-bit index. On a GPU without the memory the case is skipped and
// this entry passes.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

__global__ void gemv_warp_per_row_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                         float* __restrict__ y, int M, int K)   // the bug: int sizes
{
    const int lane = threadIdx.x % wb::kWarpSize;
    const int row = blockIdx.x * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    if (row >= M) return;
    const float* a = A + row * K;   // int * int: wraps past 2^31 - 1
    float sum = 0.0f;
    for (int k = lane; k < K; k += wb::kWarpSize) sum += a[k] * x[k];
    sum = wb::warp_reduce_sum(sum);
    if (lane == 0) y[row] = sum;
}

}   // namespace

void gemv_2_warp_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, kRowsPerBlock));
    // Both at most 2^26 (the contract): "safe" to narrow.
    gemv_warp_per_row_kernel<<<blocks, kThreads, 0, stream>>>(A, x, y, static_cast<int>(M), static_cast<int>(K));
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
