// Chapter 3, stage 2: one fused kernel, one thread block per row.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/03_softmax/stages.cuh; the lesson is chapters/03_softmax/README.md.
// Grade it with `make check-chapter 3`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=3 STAGE=2` when stuck.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 128;   // 4 warps per row: enough for rows of a few thousand elements

__global__ void __launch_bounds__(kThreads)
    softmax_block_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t cols)
{
    // TODO: block blockIdx.x owns one row. Three loops `for (c = threadIdx.x; c < cols; c += kThreads)`:
    //       1. the thread's maximum, then wb::block_reduce_max<kThreads>(m, scratch) for the row's
    //          (scratch: __shared__ float scratch[kThreads / wb::kWarpSize]);
    //       2. the sum of __expf(x - max), then wb::block_reduce_sum<kThreads>;
    //       3. y = __expf(x - max) * (1 / sum).
}

}   // namespace
//@ end
//@ outline
// TODO: one fused kernel in which a block owns a row: it reduces the row's maximum, then the sum of the shifted
//       exponentials, through shared memory, then writes the outputs, reading the row from global memory at each pass.
//@ end

void softmax_2_block_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    //@ guided
    // TODO: one block of kThreads per row; WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
