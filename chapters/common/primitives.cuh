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

#include <cstddef>
#include <cstdint>

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

/// The sum of @p value over the lanes of a group of @p width consecutive lanes (a power of two
/// <= 32); every lane of the group receives the result. Butterfly (xor) shuffles: log2(width) steps,
/// no shared memory, no barrier.
template <int width = kWarpSize>
__device__ __forceinline__ float warp_reduce_sum(float value)
{
    static_assert(width >= 1 && width <= kWarpSize && (width & (width - 1)) == 0, "width: power of two <= 32");
#pragma unroll
    for (int offset = width / 2; offset > 0; offset /= 2) {
        value += __shfl_xor_sync(kFullWarpMask, value, offset, width);
    }
    return value;
}

/// The maximum of @p value over a group of @p width lanes; every lane receives it.
template <int width = kWarpSize>
__device__ __forceinline__ float warp_reduce_max(float value)
{
    static_assert(width >= 1 && width <= kWarpSize && (width & (width - 1)) == 0, "width: power of two <= 32");
#pragma unroll
    for (int offset = width / 2; offset > 0; offset /= 2) {
        value = fmaxf(value, __shfl_xor_sync(kFullWarpMask, value, offset, width));
    }
    return value;
}

/// The sum of @p value over a whole block of @p block_threads threads (a multiple of 32, <= 1024).
/// Each warp reduces with shuffles, warp leaders meet in shared memory, and the first warp reduces
/// their partial sums. Every thread of the block receives the result. Every thread must call it.
/// @param scratch shared memory for at least block_threads / 32 floats; reusable after the call.
template <int block_threads>
__device__ __forceinline__ float block_reduce_sum(float value, float* scratch)
{
    static_assert(block_threads % kWarpSize == 0 && block_threads <= 1024, "block: multiple of 32, <= 1024");
    constexpr int warps = block_threads / kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    const int warp = threadIdx.x / kWarpSize;
    value = warp_reduce_sum(value);
    if constexpr (warps == 1) {
        return value;
    } else {
        if (lane == 0) scratch[warp] = value;
        __syncthreads();
        value = lane < warps ? scratch[lane] : 0.0f;
        value = warp_reduce_sum(value);   // every warp does it, so every thread gets the result
        __syncthreads();                         // scratch may be reused after we return
        return value;
    }
}

/// The maximum of @p value over a whole block; same rules as block_reduce_sum.
template <int block_threads>
__device__ __forceinline__ float block_reduce_max(float value, float* scratch)
{
    static_assert(block_threads % kWarpSize == 0 && block_threads <= 1024, "block: multiple of 32, <= 1024");
    constexpr int warps = block_threads / kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    const int warp = threadIdx.x / kWarpSize;
    value = warp_reduce_max(value);
    if constexpr (warps == 1) {
        return value;
    } else {
        if (lane == 0) scratch[warp] = value;
        __syncthreads();
        value = lane < warps ? scratch[lane] : -INFINITY;
        value = warp_reduce_max(value);
        __syncthreads();
        return value;
    }
}

}  // namespace wb
