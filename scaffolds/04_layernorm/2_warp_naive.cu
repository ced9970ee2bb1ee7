// Chapter 4, stage 2: one warp per row, sum and sum of squares in one pass.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/04_layernorm/stages.cuh; the lesson is chapters/04_layernorm/README.md.
// Grade it with `make check-chapter 4`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=4 STAGE=2` when stuck.
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

__global__ void __launch_bounds__(kThreads)
    layernorm_warp_naive_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                                float* __restrict__ rstd, std::int64_t rows, std::int64_t cols, float eps)
{
    // TODO: row = blockIdx.x * kRowsPerBlock + threadIdx.x / 32 (the warp leaves if row >= rows),
    //       lane = threadIdx.x % 32. One strided loop (c = lane; c += 32) accumulates sum and
    //       sum of squares; wb::warp_reduce_sum both. mean = sum / cols,
    //       var = max(sum_sq / cols - mean * mean, 0), rstd = rsqrtf(var + eps); lane 0 writes
    //       mean[row], rstd[row]; a second loop writes y.
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which one warp owns a row and sums the values and their squares in the same pass, reducing both
//       with shuffles, then normalises; note how the variance computed this way loses precision.
//@ end

void layernorm_2_warp_naive(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                            std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    //@ guided
    // TODO: ceil(rows / kRowsPerBlock) blocks of kThreads; WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps, (void)stream;
}

}   // namespace WORKBOOK_TRACK
