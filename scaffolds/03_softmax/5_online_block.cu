// Chapter 3, stage 5: online softmax, one block per row.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/03_softmax/stages.cuh; the lesson is chapters/03_softmax/README.md.
// Grade it with `make check-chapter 3`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=3 STAGE=5` when stuck.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / wb::kWarpSize;

template <int kPack>
using Pack = wb::Pack<float, kPack>;   // kPack floats moved as one access (common/primitives.cuh)

/// A partial softmax: the largest value seen, m, and s = sum of exp(x - m) over the values seen.
/// The empty pair is {-inf, 0}. Two pairs merge with wb::MaxSumMerge (common/primitives.cuh):
/// both sums rescaled to the larger maximum.
using wb::MaxSum;

/// Adds one value to a running pair, with a single exponential.
__device__ __forceinline__ void online_add(MaxSum& a, float x)
{
    // TODO: a new maximum rescales the sum: s = s * __expf(m - x) + 1, m = x. Otherwise
    //       s += __expf(x - m), but not while m is still -INFINITY (exp(-inf + inf) is NaN).
}

template <int kPack>
__global__ void __launch_bounds__(kThreads)
    softmax_online_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t cols)
{
    // TODO: block blockIdx.x owns one row of cols / kPack packs. Pass 1: each thread strides
    //       through the packs (p = threadIdx.x; p += kThreads) adding every value to its pair;
    //       merge the pairs of the block with wb::block_allreduce<wb::MaxSumMerge, kThreads>(pair,
    //       scratch), scratch a __shared__ MaxSum[kWarps] (derive the merge yourself before you
    //       read wb::MaxSumMerge). Pass 2: read the packs again and write y = __expf(x - m) * (1 / s).
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which a block owns a row and keeps a running maximum with a running sum that is rescaled whenever
//       the maximum grows, so that one read of the row gives both, and a second read writes the outputs.
//@ end

void softmax_5_online_block(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    //@ guided
    // TODO: kPack = 4, 2 or 1 (the widest that divides cols); one block of kThreads per row.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)y, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
