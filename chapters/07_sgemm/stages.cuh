/// @file 07_sgemm/stages.cuh
/// @brief Chapter 7, SGEMM: the contract of every stage.
///
/// Every stage computes the same thing,
///
///     C = alpha * A * B + beta * C        (single precision, row-major)
///
/// with A of M x K, B of K x N and C of M x N floats, each stored row after row with no padding
/// (element (i, j) of A is A[i * K + j], of B is B[i * N + j], of C is C[i * N + j]). Each function
/// is a host *launcher*: you write the kernel and choose the launch configuration inside it. The
/// grader calls it with device pointers and a stream; put all your work on that stream.
///
/// Common input contract for this chapter:
/// - 1 <= M, N, K <= 2^19, and any of them may be a prime, 1, or one more than a tile size
///   (1 x 1 x 1, 17 x 33 x 65, 1000 x 999 x 1001 are all graded). So a grid with one block per 16
///   rows fits gridDim.y (at most 65535), but products such as M * K can pass 2^31: compute row
///   offsets in 64 bits (std::int64_t).
/// - A, B and C come from cudaMalloc (256-byte aligned) and never overlap. Rows of A start on a
///   16-byte boundary only when K % 4 == 0, rows of B and C only when N % 4 == 0: float4 accesses
///   need a fallback for the other sizes.
/// - When beta == 0, C is write-only: it may hold NaN or garbage, which must not reach the result
///   (BLAS semantics: do not read C, do not compute 0 * C). The grader passes a NaN-filled C then.
/// - alpha and beta are arbitrary (the grader uses values other than 1 and 0, negative ones too).
/// - Accumulate in float; TF32, half precision or tensor cores are not SGEMM (the tolerance below
///   would reject them).
///
/// What the grader checks, for every stage: small and odd shapes against a float64 CPU reference,
/// large ones against cuBLAS SGEMM with TF32 off, with tolerances that grow with K (their derivation
/// is in chapters/07_sgemm/README.md); the speed-up over the previous reference stage, timed in the
/// same run (2048^3 for stages 1 and 2, 4096^3 for the others), and the fraction of cuBLAS reached.

#include "common/cuda_check.hpp"
#include "common/track.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace WORKBOOK_TRACK {

/// @brief Stage 1: one thread per element of C, threadIdx.x running down the rows.
///
/// The textbook triple loop on the GPU: thread (row, col) computes a dot product of length K. It is
/// correct and slow for two reasons this chapter removes one by one. Here the first: threadIdx.x
/// selects the row, so the 32 threads of a warp read 32 different rows of A (32 separate memory
/// transactions for 32 floats) and write down a column of C.
/// Checked: correctness on every graded shape; its TFLOP/s at 2048^3 is shown (no speed target).
void sgemm_1_naive(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                   cudaStream_t stream);

/// @brief Stage 2: the same kernel with threadIdx.x running along the columns (coalescing).
///
/// Consecutive threads now own consecutive columns: a warp reads one A element (a broadcast) and 32
/// consecutive floats of a row of B (one 128-byte transaction), and writes 32 consecutive floats of
/// C. Same arithmetic, several times fewer memory transactions.
/// Checked: correctness; speed-up over reference stage 1 at 2048^3.
void sgemm_2_coalesced(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream);

/// @brief Stage 3: 32 x 32 tiles of A and B staged in shared memory.
///
/// A block of 32 x 32 threads loads a 32 x 32 tile of A and one of B into shared memory (one
/// element per thread), synchronises, and each thread adds 32 products from shared memory. Every
/// element loaded from global memory is used 32 times, so the global traffic drops 32-fold; the
/// kernel is now limited by shared-memory loads (two per FMA).
/// Checked: correctness (the edge tiles are zero-filled); speed-up over reference stage 2 at 4096^3.
void sgemm_3_shared_memory_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                                  float* C, cudaStream_t stream);

/// @brief Stage 4: each thread computes 8 outputs of one column (1D register tiling).
///
/// Block tile 64 x 64, K step 8, 512 threads, 8 accumulators per thread. A value of B read from
/// shared memory is reused for 8 FMAs from a register: about 1.1 shared loads per FMA instead of 2.
/// Checked: correctness; speed-up over reference stage 3 at 4096^3.
void sgemm_4_1d_thread_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                              cudaStream_t stream);

/// @brief Stage 5: each thread computes an 8 x 8 tile of outputs (2D register tiling).
///
/// Block tile 128 x 128, K step 8, 256 threads with 64 accumulators each. Per k a thread reads 8
/// values of A and 8 of B and does their outer product: 64 FMAs for 16 shared loads (0.25 per FMA).
/// Checked: correctness; speed-up over reference stage 4 at 4096^3.
void sgemm_5_2d_thread_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                              cudaStream_t stream);

/// @brief Stage 6: 16-byte (float4) global and shared accesses, the A tile stored transposed.
///
/// Stage 5 with a quarter of the load and store instructions: float4 loads of A and B from global
/// memory, float4 stores of C, and float4 shared loads of both operands, which needs the A tile
/// stored k-major (transposed) in shared memory. The float4 path requires K % 4 == 0 and N % 4 == 0;
/// other sizes take a scalar path of the same kernel (the grader checks both).
/// Checked: correctness, including K or N not multiples of 4; speed-up over reference stage 5 at 4096^3.
void sgemm_6_vectorized(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                        cudaStream_t stream);

/// @brief Stage 7: warp tiling, so that a warp's shared loads are conflict-free broadcasts.
///
/// Each warp owns a 64 x 32 part of the block tile; each lane owns four 4 x 4 blocks of outputs,
/// spread 32 rows and 16 columns apart. A warp's float4 loads of a fragment then touch 128
/// consecutive bytes of As and 64 of Bs (no bank conflict, each address broadcast to several lanes),
/// and the warp reads a small, fixed part of the tile, which is the level that the tensor-core
/// chapters of real libraries build on.
/// Checked: correctness; speed-up over reference stage 6 at 4096^3.
void sgemm_7_warp_tiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                         cudaStream_t stream);

/// @brief Stage 8: software pipelining; the next tiles are in flight while this one is computed.
///
/// Global loads of tiles t + 1 .. t + S - 1 overlap the FMAs of tile t: multi-stage shared-memory
/// buffers filled by cp.async on compute capability 8.0 and newer (zero-filled at the edges through
/// the copy's source size), and a register-staged double buffer on older GPUs. Inside a tile, the
/// fragments of step k + 1 are read from shared memory while step k's FMAs run. Larger tiles (16 x 8
/// outputs per thread in 128 x 256 blocks) raise the FMAs per shared load further; small problems
/// need smaller tiles to give every SM work.
/// Checked: correctness; speed-up over reference stage 7 at 4096^3, and the fraction of cuBLAS SGEMM
/// it reaches (the chapter's bar: 90% at 4096^3).
void sgemm_8_pipelined(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream);

/// @brief Stage 9: an FMA order and copy placement chosen by measurement, the ragged K step first,
/// stream-K scheduling.
///
/// Stage 8's pipeline (128 x 256 tiles of 8 warps, one block per SM: the shape `make tune-chapter 7`
/// measured fastest on an H100 and an H200) with the FMAs of a k step in 2 x 2 blocks and the next
/// stage's copies issued among them (measured on an H200), and the partial K step first, so that the main loop's copies test
/// nothing. Then the schedule: a grid of one block per tile leaves part of the last wave idle (288
/// tiles on 132 SMs are 2.18 waves); stream-K keeps one block per tile for the whole waves, cuts the K
/// steps of the tiles left over into one equal share per block slot (one wave), and a third kernel
/// adds the partial sums of the split tiles (chapters/07_sgemm/stream_k.hpp).
/// Checked: correctness, including products whose tiles are split between blocks; speed-up over
/// reference stage 8 at 3072^3, and the fraction of cuBLAS SGEMM it reaches.
void sgemm_9_stream_k(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                      cudaStream_t stream);

}   // namespace WORKBOOK_TRACK
