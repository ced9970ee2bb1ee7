// Chapter 5, stage 1: transpose, one thread per element, coalesced reads, strided writes.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/05_transpose/stages.cuh; the lesson is chapters/05_transpose/README.md.
// Grade it with `make check-chapter 5`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=5 STAGE=1` when stuck.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kBlockX = 32;   // one warp along a row of the input
constexpr int kBlockY = 8;

__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                       std::int64_t cols)
{
    // TODO: this thread's input column c (from blockIdx.x, threadIdx.x) and input row r (from
    //       blockIdx.y, threadIdx.y), both as std::int64_t; if (r, c) is inside the matrix, copy
    //       in[r * cols + c] to out[c * rows + r].
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which each thread copies one element to its transposed place, consecutive threads reading along a
//       row, so that the reads are coalesced and the writes are strided.
//@ end

void transpose_1_naive(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    //@ guided
    // TODO: blocks of kBlockX x kBlockY threads, a grid of ceil(cols / kBlockX) x ceil(rows / kBlockY)
    //       blocks (wb::ceil_div), launch on `stream`, then WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)in, (void)out, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
