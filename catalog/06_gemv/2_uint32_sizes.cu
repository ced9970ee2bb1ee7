// Catalog, chapter 6, stage 2: M and K passed to the kernel as unsigned ints, so the row offset is an unsigned product.
// expect: wrong "unsigned 32-bit arithmetic"
// emulated: skip "the emulated shapes stay far below 2^31 elements, the GPU grader runs 34603011 x 132"
//
// The reference stage 2 with `unsigned M, unsigned K` and `unsigned row`: the sizes are never negative
// and at most 2^26, and unsigned arithmetic reaches 4.29 billion, twice what int reaches. That is enough
// for every shape past the int range (17825795 x 132 and the two others stay below 2^32 elements), which
// `2_int32_sizes` crashes on and this one passes. The start of row i, `A + row * K`, is still a 32-bit
// product: in the case past the unsigned range (34603011 x 132, 17 GiB, needs about 21 GiB free) it
// wraps from row 32537632 on (row 32537631 straddles 2^32 and keeps its offset), and those warps read
// the rows at the start of A again: no fault, every y from there on wrong. The grader must say that
// those are exactly the rows that read past element 2^32. On a GPU without the memory the case is
// skipped and this entry passes.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;   // one row per warp

__global__ void gemv_warp_per_row_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                         float* __restrict__ y, unsigned M, unsigned K)   // the bug: unsigned sizes
{
    const int lane = threadIdx.x % wb::kWarpSize;
    const unsigned row = blockIdx.x * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    if (row >= M) return;           // the whole warp leaves together: no lane is missing from the shuffles
    const float* a = A + row * K;   // unsigned * unsigned: wraps past 2^32 - 1
    float sum = 0.0f;
    for (unsigned k = lane; k < K; k += wb::kWarpSize) sum += a[k] * x[k];
    sum = wb::warp_reduce_sum(sum);
    if (lane == 0) y[row] = sum;
}

}   // namespace

void gemv_2_warp_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, kRowsPerBlock));
    // Both at most 2^26 (the contract), and never negative: unsigned.
    gemv_warp_per_row_kernel<<<blocks, kThreads, 0, stream>>>(A, x, y, static_cast<unsigned>(M),
                                                              static_cast<unsigned>(K));
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
