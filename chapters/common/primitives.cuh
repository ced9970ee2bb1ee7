/// @file primitives.cuh
/// @brief The workbook's one library of warp and block building blocks.
///
/// Chapter 2 (reduce) teaches how these work; every later chapter uses them instead of writing them
/// again. They follow the rules of independent thread scheduling (Volta and newer): every lane named
/// in a mask must execute the same `*_sync` call, and no code relies on warps running in lock-step.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "common/cuda_check.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace wb {

/// Number of threads in a warp on every NVIDIA GPU so far. Device code may also read `warpSize`.
inline constexpr int kWarpSize = 32;

/// All 32 lanes of a warp: the mask for shuffles that the whole warp takes part in.
inline constexpr unsigned kFullWarpMask = 0xffffffffu;

/// ceil(a / b) for positive integers: how many blocks of size b cover a elements.
template <typename T>
__host__ __device__ constexpr T ceil_div(T a, T b)
{
    return (a + b - 1) / b;
}

// Device facts (attributes, occupancy) cost a driver call, microseconds of CPU time, and never
// change while the program runs on one GPU, as the workbook's launchers do. The one idiom for them:
// ask once and keep the answer in a function-local static, initialised by the query (thread-safe
// since C++11):
//     static const int sms = wb::device_attribute(cudaDevAttrMultiProcessorCount);
//     static const int max_blocks = wb::resident_blocks(my_kernel, 256);

/// The attribute @p attribute of the current GPU (cudaDeviceGetAttribute), e.g.
/// cudaDevAttrMultiProcessorCount or cudaDevAttrComputeCapabilityMajor.
inline int device_attribute(cudaDeviceAttr attribute)
{
    int device = 0, value = 0;
    WB_CUDA_CHECK(cudaGetDevice(&device));
    WB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
    return value;
}

/// How many blocks of @p kernel the whole GPU holds at once: SMs x the blocks of @p block_threads
/// threads (and @p dynamic_smem bytes of dynamic shared memory) that fit on one SM. A grid of that
/// many blocks runs in a single wave, every block resident at the same time: the grid size of a
/// grid-stride loop (chapter 2, stage 7). Keep the answer in a function-local static (above).
template <typename Kernel>
int resident_blocks(Kernel* kernel, int block_threads, std::size_t dynamic_smem = 0)
{
    int per_sm = 0;
    WB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, dynamic_smem));
    return device_attribute(cudaDevAttrMultiProcessorCount) * per_sm;
}

/// @p kPack consecutive elements of type T, aligned so that one load or store moves them all
/// (4 floats or 8 halves = 16 bytes, the widest access a thread can make).
/// `*reinterpret_cast<const Pack<float, 4>*>(p)` compiles to one 16-byte load when p is 16-byte aligned.
template <typename T, int kPack>
struct alignas(sizeof(T) * kPack) Pack {
    T v[kPack];
};

/// Loads and stores of 16-bit types compute in float: to_float after loading, from_float<T> once
/// when storing (one rounding per output).
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v)
{
    return v;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v)
{
    return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

// ---- exponentials ------------------------------------------------------------------------------

/// 2^x in one instruction, MUFU.EX2 (PTX `ex2.approx.ftz.f32`), for softmax exponentials kept in log2
/// units (chapter 9). The result is approximate (the PTX ISA gives the bound; it is far below the
/// fp16/bf16 rounding that P gets next), and results below 2^-126 are flushed to 0: a probability that
/// small changes no sum of at least 1. exp2f() is accurate for subnormal results too, and pays for it
/// around the same MUFU.EX2 with a compare and two predicated multiplies per call (chapter 9 stage 5's
/// SASS): 4 instructions per exponential instead of 1. exp2_fast(-inf) = 0, as masked scores need.
__device__ __forceinline__ float exp2_fast(float x)
{
#if defined(WORKBOOK_EMULATED)
    const float y = std::exp2(x);
    return y < std::numeric_limits<float>::min() ? 0.0f : y;   // NaN stays NaN
#elif defined(__CUDA_ARCH__)
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return exp2f(x);
#endif
}

// ---- reductions: operators, then the warp and block all-reduce that apply them --------------------
//
// An operator is a struct with the value type it combines, an identity (the value that changes
// nothing: what lanes without data contribute), combine(a, b), and whether combine gives the same
// bits in either order. warp_allreduce and block_allreduce work for any of them; a new reduction
// needs only a new operator.

/// Sum of values of type T. Floating-point addition is commutative bit for bit (a + b == b + a),
/// though not associative: the order of the butterfly decides the rounding, the same in every lane.
template <typename T>
struct Sum {
    using value_type = T;
    static constexpr bool commutative = true;
    __device__ __forceinline__ static T identity() { return T(0); }
    __device__ __forceinline__ static T combine(T a, T b) { return a + b; }
};

/// Maximum of values of type T. Exact: the result is one of the inputs.
template <typename T>
struct Max {
    using value_type = T;
    static constexpr bool commutative = true;
    static constexpr T kLowest =
        std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
    __device__ __forceinline__ static T identity() { return kLowest; }
    __device__ __forceinline__ static T combine(T a, T b)
    {
        if constexpr (std::is_same_v<T, float>) {
            return fmaxf(a, b);   // one instruction; a NaN loses to a number, as in std::fmax
        } else {
            return a < b ? b : a;
        }
    }
};

/// A partial softmax (chapter 3, stage 5): m, the largest value seen, and s, the sum of exp(x - m)
/// over the values seen. The empty pair is {-inf, 0}.
struct MaxSum {
    float m;
    float s;
};

/// Merges two partial softmaxes: both sums are rescaled to the larger maximum,
///     m = max(ma, mb),  s = sa * exp(ma - m) + sb * exp(mb - m).
/// Two empty pairs give the empty pair, not exp(-inf - (-inf)) = NaN; one empty pair contributes
/// 0 * exp(-inf) = 0. Not commutative bit for bit: the compiler may fuse either product into an FMA.
struct MaxSumMerge {
    using value_type = MaxSum;
    static constexpr bool commutative = false;
    __device__ __forceinline__ static MaxSum identity() { return {-INFINITY, 0.0f}; }
    __device__ __forceinline__ static MaxSum combine(const MaxSum& a, const MaxSum& b)
    {
        const float m = fmaxf(a.m, b.m);
        if (m == -INFINITY) return {m, 0.0f};   // both empty (threads that saw only -inf)
        return {m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
    }
};

/// The running state of Welford's algorithm (chapter 4, stage 3; the update is in
/// 04_layernorm/welford.cuh): count, mean, and m2, the sum of squared deviations from the mean.
/// The variance is m2 / count. Counts are kept in float: exact up to 2^24 values, and a float
/// division is cheaper than converting an integer first. The empty state is {0, 0, 0}.
struct Welford {
    float mean = 0.0f;
    float m2 = 0.0f;
    float count = 0.0f;
};

/// Merges two Welford states exactly (Chan, Golub and LeVeque):
///     n = nA + nB,  delta = meanB - meanA,
///     mean = meanA + delta * nB / n,  m2 = m2A + m2B + delta^2 * nA * nB / n.
/// Either state may be empty; two empty states give the empty state instead of 0 / 0.
struct WelfordMerge {
    using value_type = Welford;
    static constexpr bool commutative = false;
    __device__ __forceinline__ static Welford identity() { return {}; }
    __device__ __forceinline__ static Welford combine(const Welford& a, const Welford& b)
    {
        const float count = a.count + b.count;
        if (count == 0.0f) return a;   // both empty: avoid 0 / 0
        const float delta = b.mean - a.mean;
        const float b_share = __fdividef(b.count, count);   // 2-ulp division; count >= 1 here
        Welford out;
        out.mean = a.mean + delta * b_share;
        out.m2 = a.m2 + b.m2 + delta * delta * a.count * b_share;
        out.count = count;
        return out;
    }
};

/// __shfl_xor_sync for a value of any type made of 4-byte words (a float, an int, a struct of
/// floats): one shuffle per word, as if each field were shuffled by hand.
template <int width, typename T>
__device__ __forceinline__ T shfl_xor(T value, int lane_mask)
{
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0, "a value of whole 4-byte words");
    if constexpr (std::is_arithmetic_v<T>) {
        return __shfl_xor_sync(kFullWarpMask, value, lane_mask, width);
    } else {
        unsigned words[sizeof(T) / 4];
        memcpy(words, &value, sizeof(T));   // registers to registers: no memory is touched
#pragma unroll
        for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) {
            words[i] = __shfl_xor_sync(kFullWarpMask, words[i], lane_mask, width);
        }
        memcpy(&value, words, sizeof(T));
        return value;
    }
}

/// Combines @p value over each group of @p width consecutive lanes (a power of two <= 32) with
/// butterfly (xor) shuffles: log2(width) steps, no shared memory, no barrier, and every lane of the
/// group receives the result. All 32 lanes of the warp must call it (full-mask shuffles): no lane
/// may have returned. For an operator whose combine depends on the order of its operands, both
/// partners of a step combine (lower lane, upper lane) in that order, so every lane ends with the
/// same bits; a commutative operator skips that choice.
template <typename Op, int width = kWarpSize>
__device__ __forceinline__ typename Op::value_type warp_allreduce(typename Op::value_type value)
{
    static_assert(width >= 1 && width <= kWarpSize && (width & (width - 1)) == 0, "width: power of two <= 32");
#pragma unroll
    for (int offset = width / 2; offset > 0; offset /= 2) {
        const typename Op::value_type other = shfl_xor<width>(value, offset);
        if constexpr (Op::commutative) {
            value = Op::combine(value, other);
        } else {
            const bool upper = (threadIdx.x % kWarpSize) & offset;   // 1-D blocks: threadIdx.x % 32 is the lane
            value = upper ? Op::combine(other, value) : Op::combine(value, other);
        }
    }
    return value;
}

/// What block_allreduce leaves behind: with Scratch::reusable (the default) a second barrier at
/// the end lets the caller write the scratch again at once (say, for a second reduction); with
/// Scratch::last_use the caller promises not to touch it again before a __syncthreads of its own,
/// and the block saves that barrier.
enum class Scratch { reusable, last_use };

/// Combines @p value over a whole block of @p block_threads threads (a multiple of 32, <= 1024;
/// 1-D blocks). Each warp combines with shuffles, lane 0 of each warp writes its result to one slot
/// of shared memory, a barrier, then every warp combines the slots (the identity beyond the last
/// warp), so every thread receives the result without another broadcast. Every thread of the block
/// must call it. The first barrier also publishes any shared memory written before the call.
/// @param scratch shared memory for block_threads / 32 values.
template <typename Op, int block_threads, Scratch after = Scratch::reusable>
__device__ __forceinline__ typename Op::value_type block_allreduce(typename Op::value_type value,
                                                                   typename Op::value_type* scratch)
{
    static_assert(block_threads % kWarpSize == 0 && block_threads <= 1024, "block: multiple of 32, <= 1024");
    constexpr int warps = block_threads / kWarpSize;
    value = warp_allreduce<Op>(value);
    if constexpr (warps == 1) {
        return value;
    } else {
        const int lane = threadIdx.x % kWarpSize;
        if (lane == 0) scratch[threadIdx.x / kWarpSize] = value;
        __syncthreads();
        value = warp_allreduce<Op>(lane < warps ? scratch[lane] : Op::identity());
        if constexpr (after == Scratch::reusable) __syncthreads();   // every warp has read its slots
        return value;
    }
}

/// The sum of @p value over a group of @p width lanes; every lane of the group receives it
/// (chapter 2, stage 8, written with xor shuffles).
template <int width = kWarpSize>
__device__ __forceinline__ float warp_reduce_sum(float value)
{
    return warp_allreduce<Sum<float>, width>(value);
}

/// The maximum of @p value over a group of @p width lanes; every lane receives it.
template <int width = kWarpSize>
__device__ __forceinline__ float warp_reduce_max(float value)
{
    return warp_allreduce<Max<float>, width>(value);
}

/// The sum of @p value over a whole block; every thread receives it; scratch (block_threads / 32
/// floats of shared memory) may be written again right after the call.
template <int block_threads>
__device__ __forceinline__ float block_reduce_sum(float value, float* scratch)
{
    return block_allreduce<Sum<float>, block_threads>(value, scratch);
}

/// The maximum of @p value over a whole block; same rules as block_reduce_sum.
template <int block_threads>
__device__ __forceinline__ float block_reduce_max(float value, float* scratch)
{
    return block_allreduce<Max<float>, block_threads>(value, scratch);
}

}   // namespace wb
