// Catalog, chapter 3, stage 5: the running (max, sum) pair starts at {-3e38, 0} instead of {-inf, 0}.
// expect: wrong "start the maximum at -INFINITY"
//
// The reference stage 5 with one change, the kind made to get rid of the -inf - (-inf) = NaN of an empty
// pair. Every row whose maximum is above -3e38 comes out right. A row whose values all lie between
// -FLT_MAX and -3e38 never replaces the start: its sum collects exp(x + 3e38) = 0 for every value and the
// row becomes 0 / 0 = NaN. -FLT_MAX would have been a correct finite start; the reference keeps -inf and
// guards the one subtraction that needs it.
#include "03_softmax/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

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
    if (x > a.m) {                            // a new maximum: rescale what was summed so far
        a.s = a.s * __expf(a.m - x) + 1.0f;   // from the empty pair: 0 * exp(-inf) + 1 = 1
        a.m = x;
    } else if (a.m != -INFINITY) {   // x = a.m = -inf would give exp(-inf + inf) = NaN
        a.s += __expf(x - a.m);
    }
}

template <int kPack>
__global__ void __launch_bounds__(kThreads)
    softmax_online_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t cols)
{
    __shared__ MaxSum scratch[kWarps];
    const std::int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    const std::int64_t packs = cols / kPack;   // cols % kPack == 0

    // Pass 1: maximum and sum together.
    MaxSum a{-3.0e38f, 0.0f};   // the bug: a finite start, above the most negative floats
#pragma unroll 4
    for (std::int64_t p = threadIdx.x; p < packs; p += kThreads) {
        const Pack<kPack> v = reinterpret_cast<const Pack<kPack>*>(xr)[p];
#pragma unroll
        for (int i = 0; i < kPack; ++i) online_add(a, v.v[i]);
    }
    // Every thread gets the row's pair; scratch is not used again, so one barrier suffices.
    a = wb::block_allreduce<wb::MaxSumMerge, kThreads, wb::Scratch::last_use>(a, scratch);

    // Pass 2: the output.
    const float inv = 1.0f / a.s;
#pragma unroll 4
    for (std::int64_t p = threadIdx.x; p < packs; p += kThreads) {
        const Pack<kPack> v = reinterpret_cast<const Pack<kPack>*>(xr)[p];
        Pack<kPack> out;
#pragma unroll
        for (int i = 0; i < kPack; ++i) out.v[i] = __expf(v.v[i] - a.m) * inv;
        reinterpret_cast<Pack<kPack>*>(yr)[p] = out;
    }
}

template <int kPack>
void launch(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    softmax_online_kernel<kPack><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, y, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace

void softmax_5_online_block(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    if (cols % 4 == 0) return launch<4>(x, y, rows, cols, stream);
    if (cols % 2 == 0) return launch<2>(x, y, rows, cols, stream);
    launch<1>(x, y, rows, cols, stream);
}

}   // namespace WORKBOOK_TRACK
