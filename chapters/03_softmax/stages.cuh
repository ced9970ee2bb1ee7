/// @file 03_softmax/stages.cuh
/// @brief Chapter 3, softmax over the rows of a matrix: the contract of every stage.
///
/// Each function below is a host *launcher*: you write the kernels and choose the launch
/// configuration inside it. The grader calls it with device pointers and a stream; put all your
/// work on that stream.
///
/// For every row r of the `rows x cols` row-major matrix x:
///     y[r][c] = exp(x[r][c] - m_r) / sum_j exp(x[r][j] - m_r),   m_r = max_j x[r][j]
/// Subtracting the row maximum changes nothing mathematically and is what keeps exp() from
/// overflowing: exp(89) is already infinite in float.
///
/// Common input contract for this chapter:
/// - x and y come from cudaMalloc (256-byte aligned), are row-major and never overlap;
/// - 1 <= cols < 2^31 and 1 <= rows < 2^31, but rows * cols may pass 2^31: index with int64_t;
/// - every row holds at least one finite value; other values may be -inf (they get probability 0),
///   huge (+-1e30, +-FLT_MAX: only the subtraction of the maximum keeps them finite), or equal (ties);
///   there are no NaN and no +inf. Every row may also lie far below zero (all values below -100,
///   or near -1e30): start the maximum at -INFINITY, never at 0.
/// The grader's special rows, at the top of every test matrix: one finite value among -inf, the
/// maximum in the last column, ties, values near 1e4, +-FLT_MAX, values in [-120, -100), values
/// near -1e30, -inf in every odd column. It also runs 70001 x 3 (more rows than gridDim.y holds:
/// map rows to blockIdx.x) and, on a GPU, 1048577 x 2.
///
/// What the grader checks (chapters/03_softmax/grader/grade.cpp): every element against a float64
/// reference, within a tolerance derived in README.md ("Tolerances"): relative
/// E = 2 (3 D + 5 depth + 32) 2^-24, where D (at most 88) is the spread of the row's values that
/// still matter and depth the longest chain of additions the stage may use (cols for stage 1,
/// cols / 32 + 16 for the others, which share each row among at least 32 threads).

// Types shared by both tracks (defined once, whatever the track).
#ifndef WORKBOOK_CH03_TYPES
#define WORKBOOK_CH03_TYPES
#include "common/cuda_check.hpp"
#include "common/track.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace ch03 {
/// The longest row stage 4 (one warp per row, the row in registers) must support.
inline constexpr std::int64_t kWarpRegistersMaxCols = 1024;
}   // namespace ch03
#endif

namespace WORKBOOK_TRACK {

/// @brief Stage 1: the textbook softmax in three kernels.
///
/// Kernel 1 finds each row's maximum, kernel 2 writes e = exp(x - max) to y and sums it per row,
/// kernel 3 divides y by the row's sum. One thread per row in the first two kernels (the first
/// thing most people write), one thread per element in the third. The row maxima and sums live in
/// a workspace in global memory between the kernels. Count the passes over memory: read x, read x
/// and write y, read y and write y.
/// @param x input, rows x cols floats, row-major
/// @param y output, rows x cols floats
/// Checked: cols from 1 to 65537 (any remainder), rows with -inf, huge values and ties. A
/// workspace may come from cudaMallocAsync / cudaFreeAsync on @p stream. No speed target (first
/// stage); its bandwidth is shown.
void softmax_1_three_kernels(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// @brief Stage 2: one kernel, one thread block per row, block-wide reductions.
///
/// The threads of a block stride through their row together, so each load of a warp is
/// coalesced; the row maximum and the sum are block reductions (shuffles inside each warp, then
/// shared memory across warps: wb::block_reduce_max / wb::block_reduce_sum). Fusing the three
/// kernels removes the workspace and one write and one read of y; the row's second and third
/// reads mostly hit the cache.
/// Checked: as stage 1; speed against reference stage 1 on 65536 x 1024 floats.
void softmax_2_block_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// @brief Stage 3: one warp per row, reductions with __shfl_xor_sync only.
///
/// A warp reduces without shared memory or __syncthreads: log2(32) = 5 butterfly shuffles and
/// every lane holds the result. For rows of up to a few thousand elements a warp is enough
/// work, and the block-wide barriers of stage 2 were most of the cost.
/// Checked: as stage 1; speed against reference stage 2 on 524288 x 128 floats.
void softmax_3_warp_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// @brief Stage 4: one warp per row, the row held in registers, read from memory once.
///
/// Each lane loads its share of the row with vector loads (4, 2 or 1 floats, whatever keeps the
/// row start aligned: cols % 4 == 0 gives 16-byte float4 accesses) into a register array whose
/// size is a template parameter. Max, exponentials, sum and the final scale all work on registers:
/// x is read once and y written once, the minimum traffic.
/// Supports cols <= ch03::kWarpRegistersMaxCols (1024); the grader tests only those.
/// Checked: as stage 1 for cols <= 1024; speed against reference stage 3 on 65536 x 1024 floats.
void softmax_4_warp_registers(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// @brief Stage 5: online softmax for long rows, one block per row.
///
/// A running maximum m and a sum s rescaled whenever m grows (s = s * exp(m_old - m_new)) give
/// both statistics in one pass; partial pairs merge the same way across threads. Two passes over
/// x (statistics, then output) instead of three: for rows too long to stay in cache, a third
/// less traffic than stage 2.
/// Checked: as stage 1, including rows of -inf; speed against reference stage 2 (the other
/// block-per-row stage) on 2048 x 32768 floats.
void softmax_5_online_block(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// @brief Stage 6: a production softmax that picks its kernel by row length (fp32).
///
/// - cols <= 2048: the row in registers (stage 4), with thread groups narrower than a warp and two
///   rows per group when rows are short (cols <= 16 * pack), so that no lane idles;
/// - longer rows that fit in shared memory: one block per row, the row cached in shared memory
///   and read from global memory once; the block size chosen with occupancy queries;
/// - rows too long for shared memory: stage 5's online softmax (two reads).
/// Checked: cols from 1 to 65537 (all three paths); speed against reference stage 4 on
/// 2097152 x 32 floats, where narrow groups matter most. `make bench` compares it with PyTorch.
void softmax_6_dispatch(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// @brief Stage 6, half precision: the same dispatch on __half data, computed in float.
///
/// Loads __half (16 bytes = 8 at a time when cols % 8 == 0), accumulates in float, rounds once
/// when storing. Checked: within half an ulp of the rounded result plus the float error above,
/// cols from 1 to 131073.
void softmax_6_dispatch_half(const __half* x, __half* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// @brief Stage 6, log-softmax: y = (x - max) - log(sum exp(x - max)), same dispatch, fp32.
///
/// Never log(softmax(x)): softmax underflows to 0 for values far below the maximum, and log(0)
/// is -inf, while (x - max) - log(sum) stays exact. -inf inputs give -inf.
/// Checked: absolute error E (as above) plus 4 float ulps, cols from 1 to 65537.
void log_softmax_6_dispatch(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

}   // namespace WORKBOOK_TRACK
