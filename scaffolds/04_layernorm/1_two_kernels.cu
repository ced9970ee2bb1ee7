// Chapter 4, stage 1: LayerNorm as a statistics kernel and a normalisation kernel.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/04_layernorm/stages.cuh; the lesson is chapters/04_layernorm/README.md.
// Grade it with `make check-chapter 4`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=4 STAGE=1` when stuck.
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kMomentThreads = 128;
constexpr int kThreads = 256;

/// Kernel 1: mean[r] and rstd[r] of every row, one block per row, two passes over the row.
__global__ void __launch_bounds__(kMomentThreads)
    row_moments_kernel(const float* __restrict__ x, float* __restrict__ mean, float* __restrict__ rstd,
                       std::int64_t cols, float eps)
{
    // TODO: block blockIdx.x owns a row. Pass 1: strided sum (c = threadIdx.x; c += kMomentThreads),
    //       wb::block_reduce_sum<kMomentThreads>(sum, scratch) / cols = mean (scratch: __shared__
    //       float[kMomentThreads / 32]). Pass 2: the sum of (x - mean)^2, reduced the same way,
    //       / cols = var. Thread 0 writes mean[row] and rstd[row] = rsqrtf(var + eps).
}

/// Kernel 2: y = (x - mean) * rstd * gamma + beta, one thread per element.
__global__ void __launch_bounds__(kThreads)
    normalise_kernel(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                     const float* __restrict__ mean, const float* __restrict__ rstd, float* __restrict__ y,
                     std::int64_t n, std::int64_t cols)
{
    // TODO: i = global index (std::int64_t); if i < n: row = i / cols, col = i - row * cols,
    //       y[i] = (x[i] - mean[row]) * rstd[row] * gamma[col] + beta[col].
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel that computes the mean and the inverse standard deviation of each row.
// TODO: a kernel that normalises each element with its row's statistics and applies the scale and shift.
//@ end

void layernorm_1_two_kernels(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                             std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    //@ guided
    // TODO: row_moments_kernel with one block per row, then normalise_kernel over rows * cols
    //       elements, both on `stream`, WB_CHECK_LAUNCH() after each.
    //@ end
    //@ outline
    // TODO: launch your kernels in order on `stream` with the grids, blocks and shared memory you choose, then
    //       check each launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps, (void)stream;
}

}   // namespace WORKBOOK_TRACK
