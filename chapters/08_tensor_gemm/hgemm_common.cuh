/// @file 08_tensor_gemm/hgemm_common.cuh
/// @brief Chapter 8: the element-type argument, and small device helpers the stages share.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
// The pipeline primitives compile only in device code (and in the emulator); the grader's host-only
// files that include this header (through stages.cuh) see neither them nor the wrappers below.
#if defined(__CUDACC__) || defined(WORKBOOK_EMULATED)
#define CH08_HAS_PIPELINE 1
#include <cuda_pipeline.h>
#endif

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

#ifdef CH08_HAS_PIPELINE
// ---- cp.async, through the pipeline primitives of <cuda_pipeline.h> -----------------------------
// __pipeline_memcpy_async(dst, src, 16, zfill) is one cp.async.cg (LDGSTS in the SASS): 16 bytes from
// global to shared memory without passing through registers; the last `zfill` bytes are zeroed
// instead of read. __pipeline_commit() is cp.async.commit_group, __pipeline_wait_prior(n) is
// cp.async.wait_group n. Before compute capability 8.0 the header makes them synchronous copies (the
// chapter's stages are skipped there). The CPU emulator provides the same three functions.

/// Copies 16 bytes from global to shared memory asynchronously. When @p inside is false nothing is
/// read and the 16 bytes are zero-filled: the edge of a tile.
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool inside)
{
    __pipeline_memcpy_async(smem, gmem, 16, inside ? 0 : 16);
}

/// Closes the group of this thread's copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { __pipeline_commit(); }

/// Waits until at most @p kPending of this thread's committed groups are still in flight (then a
/// __syncthreads() makes every thread's finished copies visible to the block).
template <int kPending>
__device__ __forceinline__ void cp_async_wait()
{
    __pipeline_wait_prior(kPending);
}
#endif   // CH08_HAS_PIPELINE

}   // namespace ch08
