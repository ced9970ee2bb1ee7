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

/// Output tile @p id of a 1-D numbering -> (tile row @p tm, tile column @p tn), in groups of @p group_rows
/// tile rows that walk along N together: tiles running at the same time share their rows of A and
/// columns of B, which then stay in L2 (matters from about 8192^3 on).
__device__ __forceinline__ void grouped_tile(int id, int tiles_m, int tiles_n, int group_rows, int& tm, int& tn)
{
    const int per_group = group_rows * tiles_n;
    const int first = (id / per_group) * group_rows;
    const int rows_here = tiles_m - first < group_rows ? tiles_m - first : group_rows;
    tm = first + (id % per_group) % rows_here;
    tn = (id % per_group) / rows_here;
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

#ifdef CH08_HAS_PIPELINE   // device code: not for the grader's host-only files either
/// The epilogue of two neighbouring outputs (row, col) and (row, col + 1), col even, as an mma
/// accumulator holds them: C = alpha * acc + beta * C inside M x N. When N is even the pair's address
/// is 8-byte aligned and it goes out as one 8-byte store, half the store instructions and sectors
/// touched of two 4-byte stores; at the right edge (or N odd) each element is stored alone.
__device__ __forceinline__ void store_c_pair(float* C, int row, int col, int M, int N, float x, float y, float alpha,
                                             float beta)
{
    if (row >= M) return;
    float* c = C + static_cast<std::int64_t>(row) * N + col;
    if (N % 2 == 0 && col + 1 < N) {
        float2 out = make_float2(alpha * x, alpha * y);
        if (beta != 0.0f) {
            const float2 old = *reinterpret_cast<const float2*>(c);
            out.x += beta * old.x, out.y += beta * old.y;
        }
        *reinterpret_cast<float2*>(c) = out;
    } else {
        if (col < N) store_c(c, x, alpha, beta);
        if (col + 1 < N) store_c(c + 1, y, alpha, beta);
    }
}

/// The epilogue of one wgmma warpgroup's 64 x 256 accumulators (layout in chapters/common/hopper.cuh),
/// called by each of its threads: this warp's rows start at @p row0 (the tile's row + 16 x the warp's
/// place in the warpgroup), the tile's columns at @p col0.
__device__ __forceinline__ void store_wgmma_64x256(const float (&acc)[128], int row0, int col0, int M, int N,
                                                   float alpha, float beta, float* C)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int j = 0; j < 32; ++j)
#pragma unroll
        for (int half = 0; half < 2; ++half)
            store_c_pair(C, row0 + g + 8 * half, col0 + 8 * j + 2 * t, M, N, acc[4 * j + 2 * half],
                         acc[4 * j + 2 * half + 1], alpha, beta);
}
#endif


}   // namespace ch08
