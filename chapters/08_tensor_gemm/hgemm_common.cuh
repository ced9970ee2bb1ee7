/// @file 08_tensor_gemm/hgemm_common.cuh
/// @brief Chapter 8: the element-type argument, and small device helpers the stages share.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace ch08 {

/// The 16-bit type of A and B (C is always fp32).
enum class Dtype { f16, bf16 };

inline const char* dtype_name(Dtype dtype) { return dtype == Dtype::f16 ? "fp16" : "bf16"; }

/// One 16-byte chunk: 8 consecutive elements along K. Kernels move A and B as raw 16-bit patterns
/// (zero is the same pattern in fp16 and bf16); only the mma needs to know the type.
using Chunk = uint4;
constexpr int kChunkElems = 8;

__device__ __forceinline__ Chunk zero_chunk() { return make_uint4(0u, 0u, 0u, 0u); }

/// The epilogue of one element: C = alpha * acc + beta * C, without reading C when beta == 0 (C may
/// hold NaN then).
__device__ __forceinline__ void store_c(float* c, float acc, float alpha, float beta)
{
    *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

// ---- cp.async (compute capability 8.0 and newer) ------------------------------------------------------
// On older GPUs the chapter's stages are skipped; the synchronous stand-in only lets the file compile.

/// Copies 16 bytes from global to shared memory without passing through registers. When @p inside
/// is false nothing is read (source size 0) and the 16 bytes are zero-filled: the edge of a tile.
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool inside)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(inside ? 16 : 0));
#else
    *static_cast<Chunk*>(smem) = inside ? *static_cast<const Chunk*>(gmem) : zero_chunk();
#endif
}

/// Closes the group of this thread's copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/// Waits until at most @p kPending of this thread's committed groups are still in flight (then a
/// __syncthreads() makes every thread's finished copies visible to the block).
template <int kPending>
__device__ __forceinline__ void cp_async_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#endif
}

}  // namespace ch08
