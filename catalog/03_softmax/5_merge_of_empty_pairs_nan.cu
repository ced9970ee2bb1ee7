// Catalog, chapter 3, stage 5: online softmax whose merge of two (m, s) pairs has no case for two empty pairs.
// expect: wrong "-inf - (-inf) | empty pair"
//
// The per-thread update is guarded as the lesson says (a value of -inf leaves the empty pair (-inf, 0)
// alone), but the learner's merge is the formula as written on the whiteboard:
//     m = max(ma, mb),  s = sa * exp(ma - m) + sb * exp(mb - m).
// For two empty pairs m = -inf and ma - m = -inf - (-inf) = NaN, so the merged sum is 0 * NaN = NaN,
// and one NaN poisons the whole reduction. Empty pairs are common: every thread of a row of -inf
// values but one (the grader's special row 0), every thread past the end of a row shorter than the
// block (256 threads). A row of ordinary values longer than the block passes. The grader must fail it
// on its -inf rows and short rows, and say why: the NaN comes from exp(-inf - (-inf)) of an empty
// pair, not from an overflow, since every argument of exp is x - max <= 0 (the chapter's README lists
// this trap). A verdict that only says "an overflow (exp of a large value? subtract the maximum
// first)" sends a learner who did subtract it in the wrong direction.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / wb::kWarpSize;

struct Pair {
    float m;   // largest value seen
    float s;   // sum of exp(x - m) over the values seen
};

/// One value into a running pair; guarded, so a thread that sees only -inf keeps (-inf, 0).
__device__ __forceinline__ void online_add(Pair& a, float x)
{
    if (x > a.m) {
        a.s = a.s * __expf(a.m - x) + 1.0f;
        a.m = x;
    } else if (x != -INFINITY) {
        a.s += __expf(x - a.m);
    }
}

/// The bug: no case for m == -inf, where both pairs are empty and a.m - m is NaN.
__device__ __forceinline__ Pair merge(const Pair& a, const Pair& b)
{
    const float m = fmaxf(a.m, b.m);
    return {m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
}

__device__ __forceinline__ Pair warp_merge(Pair p)
{
#pragma unroll
    for (int offset = wb::kWarpSize / 2; offset > 0; offset /= 2) {
        Pair other;
        other.m = __shfl_xor_sync(wb::kFullWarpMask, p.m, offset);
        other.s = __shfl_xor_sync(wb::kFullWarpMask, p.s, offset);
        p = merge(p, other);
    }
    return p;
}

__global__ void __launch_bounds__(kThreads)
    softmax_online_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t cols)
{
    __shared__ Pair scratch[kWarps];
    const std::int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    Pair a{-INFINITY, 0.0f};
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) online_add(a, xr[c]);
    a = warp_merge(a);
    if (threadIdx.x % wb::kWarpSize == 0) scratch[threadIdx.x / wb::kWarpSize] = a;
    __syncthreads();
    Pair row_pair = scratch[0];
    for (int w = 1; w < kWarps; ++w) row_pair = merge(row_pair, scratch[w]);

    const float inv = 1.0f / row_pair.s;
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) yr[c] = __expf(xr[c] - row_pair.m) * inv;
}

}   // namespace

void softmax_5_online_block(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    softmax_online_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, y, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
