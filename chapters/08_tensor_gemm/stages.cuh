/// @file 08_tensor_gemm/stages.cuh
/// @brief Chapter 8, tensor-core GEMM: the contract of every stage.
///
/// Every stage computes the same thing,
///
///     C = alpha * A * B + beta * C        (A, B in fp16 or bf16; products accumulated in fp32; C fp32)
///
/// with A of M x K, B of K x N and C of M x N. The layouts ("TN", as cuBLAS calls it):
/// - A is row-major: element (m, k) is A[m * K + k];
/// - B is stored *column-major*, i.e. as N rows of K elements: element (k, n) is B[n * K + k];
/// - C is row-major fp32: element (m, n) is C[m * N + n].
/// Why B column-major: both operands are then contiguous along K, the dimension every tensor-core
/// instruction reduces over. One 16-byte load brings 8 consecutive k of one row of A or one column
/// of B, and `ldmatrix` (without .trans) hands both straight to `mma.sync`'s fragments. It is also
/// what a framework passes for a linear layer y = x W^T: the weight W is stored N x K, row after row.
///
/// The element type is a run-time argument (@p dtype): one launcher per stage serves both; inside,
/// the usual shape is one kernel template instantiated for __half and __nv_bfloat16 (ch08::Dtype and
/// ch08::dispatch in chapters/08_tensor_gemm/hgemm_common.cuh).
///
/// Common input contract for this chapter:
/// - 1 <= M, N <= 2^16 and 8 <= K <= 2^16 with **K % 8 == 0** (the grader passes no other K). So every
///   row of A and B starts on a 16-byte boundary and holds whole 16-byte chunks of 8 elements: 16-byte
///   loads, `cp.async` of 16 bytes and `ldmatrix` rows need no scalar fallback along K. K need not be a
///   multiple of 16 (one mma step) or of your K tile: K = 8, 24, 40 are graded. M and N are arbitrary
///   (1, primes, one more than a tile): partial tiles must be zero-filled or masked.
/// - Products of sizes can pass 2^31 (M * K, N * K and M * N up to 2^32): compute element offsets in
///   64 bits (std::int64_t). On a GPU with the memory, the grader runs one case each with A, B and C past
///   2^31 elements.
/// - A, B and C come from cudaMalloc (256-byte aligned) and never overlap.
/// - When beta == 0, C is write-only: it may hold NaN, which must not reach the result (BLAS semantics:
///   do not read C). The grader passes a NaN-filled C then.
/// - alpha and beta are arbitrary floats. Inputs are finite fp16/bf16 values, some large and some tiny
///   (subnormal in fp16); products are exact in fp32, sums are rounded to fp32.
/// - The stages use tensor cores and need compute capability 8.0 or newer (mma.sync m16n8k16 for bf16,
///   cp.async): the grader skips them, with that reason, on older GPUs. Stages 6 and 7 use Hopper's
///   sm_90a instructions (TMA, wgmma, setmaxnreg) and run on compute capability 9.0 alone; the CPU
///   emulator does not model them either. TMA adds its own rules, which the contract above already
///   meets: a 16-byte aligned base and a row length in bytes (2 K) that is a multiple of 16.
///
/// What the grader checks, for every stage: small and odd shapes in fp16 and bf16 against a float64 CPU
/// reference of the rounded inputs, with a tolerance that grows with K (derivation in
/// chapters/08_tensor_gemm/README.md); on a GPU, large shapes against cuBLAS (cublasGemmEx, fp32
/// compute) and the speed-up over the previous reference stage, timed in the same run.

#include "08_tensor_gemm/hgemm_common.cuh"
#include "common/cuda_check.hpp"
#include "common/track.hpp"

#include <cuda_runtime.h>

namespace WORKBOOK_TRACK {

/// @brief Stage 1: WMMA, one warp per 16 x 16 tile of C, fragments loaded straight from global memory.
///
/// The smallest step onto the tensor cores: `nvcuda::wmma` loads a 16 x 16 piece of A and of B into
/// fragments and one `mma_sync` does 4096 multiply-adds. Every warp reads its rows of A and columns of
/// B from global memory (L2 and L1) by itself: nothing is shared between warps.
/// Checked: correctness on every graded shape (no speed target: this is the baseline).
void hgemm_1_wmma_naive(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                        float* C, cudaStream_t stream);

/// @brief Stage 2: WMMA with shared-memory block tiles.
///
/// A block of 4 warps stages a 64 x 32 tile of A and of B in shared memory; each warp computes a
/// 32 x 32 part of the 64 x 64 block tile (2 x 2 fragments), so every element loaded from global
/// memory feeds 4 warps' worth of mma instead of 1, and each A fragment is reused for 2 B fragments.
/// Checked: correctness; speed-up over reference stage 1.
void hgemm_2_wmma_shared(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                         float* C, cudaStream_t stream);

/// @brief Stage 3: `mma.sync` m16n8k16 fed by `ldmatrix`, block and warp tiling.
///
/// Drop WMMA for the instructions it is built on (wb::ldmatrix_x4, wb::mma_m16n8k16 in
/// chapters/common/tensor_core.cuh): the fragment layout is now known, so the epilogue writes C
/// straight from registers and the tiles grow to 128 x 128 per block, 64 x 32 per warp (16 mma per
/// K step of 16 from 4 + 2 ldmatrix).
/// Checked: correctness; speed-up over reference stage 2.
void hgemm_3_mma_ldmatrix(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                          float* C, cudaStream_t stream);

/// @brief Stage 4: a `cp.async` multi-stage pipeline.
///
/// Stage 3's tiles, with three shared-memory buffers: `cp.async` copies tiles t + 1 and t + 2 from
/// global to shared memory, without passing through registers, while the warps compute tile t.
/// Checked: correctness; speed-up over reference stage 3.
void hgemm_4_cp_async(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                      float* C, cudaStream_t stream);

/// @brief Stage 5: the best Ampere-style kernel: XOR-swizzled shared memory, 64 x 64 warp tiles, fragments
/// loaded ahead.
///
/// Shared rows of 64 elements (128 bytes) without padding: the 16-byte chunk c of row r is stored at
/// chunk c ^ (r % 8), so the 8 rows one ldmatrix matrix reads land in 8 different bank groups. With the
/// shared memory that padding cost, the warp tiles grow to 64 x 64 (32 mma per 8 ldmatrix), two sets of
/// fragments in registers let ldmatrix for the next K step overlap the mma of this one, interior
/// blocks copy without bounds tests, and blocks are ordered in groups for L2 reuse.
/// Checked: correctness; speed-up over reference stage 4.
void hgemm_5_swizzle(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                     float* C, cudaStream_t stream);

/// @brief Stage 6 (Hopper, compute capability 9.0): TMA copies into swizzled shared memory, `wgmma` reads
/// it.
///
/// One thread asks the copy engine (TMA) for whole 128 x 64 and 256 x 64 tiles, which land in the
/// 128-byte swizzle of stage 5 and complete an mbarrier; two warpgroups each multiply 64 x 256 of the
/// 128 x 256 block tile with `wgmma` m64n256k16, both operands read from shared memory (helpers in
/// chapters/common/hopper.cuh). Four 48 KiB buffers; a __syncthreads after each tile frees its buffer.
/// Uses sm_90a instructions: graded on compute capability 9.0 only (skipped elsewhere, with the reason).
/// Checked: correctness; speed-up over reference stage 5.
void hgemm_6_tma_wgmma(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype, float beta,
                       float* C, cudaStream_t stream);

/// @brief Stage 7 (Hopper, compute capability 9.0): warp specialisation, persistent blocks, an L2-friendly
/// tile order.
///
/// A producer warpgroup (one thread issuing TMA, its registers given back with setmaxnreg) and two
/// consumer warpgroups (wgmma, more registers) pass buffers through "full" and "empty" mbarriers, with
/// no block-wide barrier in the loop; one block per SM walks a grouped list of output tiles, so the
/// next tile's copies overlap this tile's epilogue.
/// Uses sm_90a instructions: graded on compute capability 9.0 only (skipped elsewhere, with the reason).
/// Checked: correctness; speed-up over reference stage 6.
void hgemm_7_warp_specialized(int M, int N, int K, float alpha, const void* A, const void* B, ch08::Dtype dtype,
                              float beta, float* C, cudaStream_t stream);

}   // namespace WORKBOOK_TRACK
