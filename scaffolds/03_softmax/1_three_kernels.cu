// Chapter 3, stage 1: softmax in three kernels: row max, exp and sum, normalise.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/03_softmax/stages.cuh; the lesson is chapters/03_softmax/README.md.
// Grade it with `make check-chapter 3`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=3 STAGE=1` when stuck.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

/// Kernel 1: row_max[r] = max_c x[r][c], one thread per row.
__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ row_max, std::int64_t rows,
                               std::int64_t cols)
{
    // TODO: row = this thread's global index (std::int64_t); if row < rows, loop over the row
    //       (x + row * cols) keeping the maximum (start from -INFINITY, use fmaxf), store it.
}

/// Kernel 2: y[r][c] = exp(x[r][c] - max_r), row_sum[r] = sum_c y[r][c], one thread per row.
__global__ void exp_sum_kernel(const float* __restrict__ x, const float* __restrict__ row_max, float* __restrict__ y,
                               float* __restrict__ row_sum, std::int64_t rows, std::int64_t cols)
{
    // TODO: for the thread's row: e = __expf(x - row_max[row]) for every column, written to y and
    //       added to a running sum; store the sum in row_sum[row].
}

/// Kernel 3: y[i] /= row_sum[row of i], one thread per element (coalesced).
__global__ void normalise_kernel(float* __restrict__ y, const float* __restrict__ row_sum, std::int64_t n,
                                 std::int64_t cols)
{
    // TODO: i = global index; if i < n, divide y[i] by the sum of its row (i / cols).
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel that finds the largest value of each row.
// TODO: a kernel that sums the exponentials of each row, shifted by its largest value so that nothing overflows.
// TODO: a kernel that writes each output: the shifted exponential divided by its row's sum.
//@ end

void softmax_1_three_kernels(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    //@ guided
    // TODO: get a workspace of 2 * rows floats (cudaMallocAsync on `stream`, wrapped in
    //       WB_CUDA_CHECK); launch the three kernels on `stream` (enough threads for `rows`, then
    //       for rows * cols), WB_CHECK_LAUNCH() after each; cudaFreeAsync the workspace.
    //@ end
    //@ outline
    // TODO: launch your kernels in order on `stream` with the grids, blocks and shared memory you choose, then
    //       check each launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
