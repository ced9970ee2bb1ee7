/// @file 06_gemv/stages.cuh
/// @brief Chapter 6, matrix-vector product y = A x: the contract of every stage.
///
/// Each function below is a host *launcher*: you write the kernel and choose the launch
/// configuration inside it. The grader calls it with device pointers and a stream; put all your
/// work on that stream.
///
/// Common input contract for this chapter:
/// - `A` is an `M x K` fp32 matrix, row-major: element (i, k) is `A[i * K + k]`; `x` has K floats,
///   `y` receives M floats: `y[i] = sum_k A[i * K + k] * x[k]`;
/// - 1 <= M <= 2^26 and 1 <= K <= 2^26, any values (K = 1, 3, 33, 1001 are tested); M * K may pass
///   2^31: index with std::int64_t;
/// - every pointer comes from cudaMalloc (256-byte aligned). Row i starts at `A + i * K`, which is
///   16-byte aligned for every row only when K % 4 == 0: stages with float4 loads must fall back to
///   scalar loads for other K;
/// - inputs and outputs never overlap; y holds garbage on entry (write every element, do not add).
///
/// What is checked, for every stage (see grader/grade.cpp):
/// - exact results on small integers (every product and every partial sum is an integer below
///   2^24, so every order of summation gives the same float): one element missed or counted twice
///   changes the result;
/// - random values in [-1, 1] within the error bound of a float32 dot product summed in any
///   order, (K + 1) * 2^-24 * sum_k |A_ik x_k| (Higham, Accuracy and Stability of Numerical
///   Algorithms, section 3.1); one tolerance for the whole vector, the largest bound over its rows
///   (the rows of a random matrix have nearly the same bound);
/// - 70001 x 3 (more rows than gridDim.y holds: map rows to blockIdx.x) and, on a GPU, 1048577 x 3;
/// - tall (M >> K), wide (K >> M) and square shapes, odd K, K below and above every group width
///   (and so every branch of stage 6's dispatch);
/// - speed against the previous reference stage on the stage's own shape (the last stage: against
///   cuBLAS cublasSgemv on the chapter's five benchmark shapes, in the same run).

// Types shared by both tracks (defined once, whatever the track).
#ifndef WORKBOOK_CH06_TYPES
#define WORKBOOK_CH06_TYPES
#include "common/cuda_check.hpp"
#include "common/track.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#endif

namespace WORKBOOK_TRACK {

/// @brief Stage 1: one thread per row.
///
/// Thread i walks row i alone and sums A[i][k] * x[k]. Simple, and every output needs no
/// cooperation, but the 32 lanes of a warp read addresses K * 4 bytes apart: each load
/// instruction touches 32 different lines, and for a long row those lines are evicted before
/// the next iterations come back for the rest of them.
/// Checked: as every stage (the file comment). No speed target; its bandwidth is shown.
void gemv_1_thread_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                           cudaStream_t stream);

/// @brief Stage 2: one warp per row, lanes stride along the row, a shuffle reduction at the end.
///
/// Lane l sums the products k = l, l + 32, l + 64, ...: the warp reads 32 consecutive floats per
/// step (coalesced). The 32 partial sums are combined with wb::warp_reduce_sum (five
/// `__shfl_xor_sync` steps, no shared memory) and lane 0 writes y[i]. A block of 8 warps does 8 rows.
/// Checked: as every stage; speed against reference stage 1 on 65536 x 4096.
void gemv_2_warp_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream);

/// @brief Stage 3: one warp per row with float4 loads.
///
/// Each lane loads 16 bytes of A (and of x) per step: a quarter of the load instructions and loop
/// iterations of stage 2 for the same bytes, and four times the bytes in flight per instruction.
/// That matters when there are few warps: with many rows (65536 x 4096) the scalar loads of
/// stage 2 already keep the memory busy, with 1024 rows of 262144 floats they do not.
/// Only legal when every row is 16-byte aligned (K % 4 == 0); for other K, keep stage 2's scalar loop.
/// Checked: as every stage, K of every remainder mod 4; speed against reference stage 2 on
/// 1024 x 262144.
void gemv_3_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream);

/// @brief Stage 4: several rows per warp for short rows: groups of G lanes per row.
///
/// With K = 32 a whole warp per row gives each lane a quarter of a float4 to do: 24 of its 32
/// lanes have nothing to load. Split the warp into groups of G lanes (G = 1, 2, 4, 8, 16 or 32,
/// the smallest power of two with 4 G >= K, at most 32): each group owns one row, so a warp works
/// on 32 / G rows at once, and the reduction is wb::warp_reduce_sum<G> over the group only.
/// Every lane of the warp must take part in the shuffles, also the lanes whose row is past M.
/// Checked: as every stage, every group width; speed against reference stage 3 on 4194304 x 32.
void gemv_4_subwarp(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream);

/// @brief Stage 5: one block per row, for long rows.
///
/// 1024 rows of 262144 floats are 1024 warps at one warp per row: 8 per multiprocessor of a
/// 132-multiprocessor GPU that can hold 64, so most of the latency-hiding is missing. One block of
/// 256 threads per row gives 8 times more threads, each with a 256th of the row; the partial sums
/// meet in wb::block_reduce_sum.
/// Checked: as every stage; speed against reference stage 4 on 1024 x 262144.
void gemv_5_block_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                          cudaStream_t stream);

/// @brief Stage 6: pick the kernel by K.
///
/// No single mapping wins everywhere: groups of lanes for short rows (stage 4), blocks (stage 5)
/// for long rows, a warp per row in between. The launcher looks at K and launches the right
/// kernel; the short-row kernel is tuned further: each group handles several rows, so a lane
/// issues several independent 16-byte loads before its first reduction, and A is loaded with the
/// streaming cache hint (`__ldcs`: read once, evict first).
/// Checked: as every stage, including shapes that reach every branch of the dispatch; speed
/// against cuBLAS cublasSgemv on the five shapes 16384 x 16384, 65536 x 4096, 4096 x 65536,
/// 1048576 x 128 and 4194304 x 32 launched one after the other. The chapter's goal: at least
/// cuBLAS at every one of them, and 1.3 times cuBLAS at K = 32 (`make bench`).
void gemv_6_dispatch(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream);

}   // namespace WORKBOOK_TRACK
