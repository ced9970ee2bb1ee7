/// @file 04_layernorm/stages.cuh
/// @brief Chapter 4, LayerNorm forward over the rows of a matrix: the contract of every stage.
///
/// Each function below is a host *launcher*: you write the kernels and choose the launch
/// configuration inside it. The grader calls it with device pointers and a stream; put all your
/// work on that stream.
///
/// For every row r of the `rows x cols` row-major matrix x, with n = cols:
///     mean_r = sum_c x[r][c] / n,   var_r = sum_c (x[r][c] - mean_r)^2 / n   (population variance)
///     rstd_r = 1 / sqrt(var_r + eps)
///     y[r][c] = (x[r][c] - mean_r) * rstd_r * gamma[c] + beta[c]
/// and mean[r], rstd[r] are outputs too (a backward pass needs them).
///
/// Common input contract for this chapter:
/// - all pointers come from cudaMalloc (256-byte aligned); x, y, mean, rstd never overlap;
/// - gamma and beta hold cols values, shared by every row;
/// - 1 <= cols < 2^31 and 1 <= rows < 2^31, but rows * cols may pass 2^31: index with int64_t. The
///   grader runs 70001 x 3 (more rows than gridDim.y holds: map rows to blockIdx.x) and, on a GPU,
///   1048577 x 2;
/// - values are finite with |x| <= 1e15 (so that x^2 summed over a row stays finite in float), and
///   the mean may be far larger than the spread (values near 1e4 that differ by 1): the grader
///   tests exactly that from stage 3 on;
/// - eps > 0, passed by the caller: the grader draws it per case from 1e-5, 1e-3, 0.1 and 1 (a
///   kernel with 1e-5f written in fails).
///
/// What the grader checks (chapters/04_layernorm/grader/grade.cpp): y, mean and rstd against a float64
/// reference, within bounds derived in README.md ("Tolerances") from the longest chain of additions
/// a stage may use (stage 1: depth = cols, so one thread may sum a whole row in float; the others:
/// depth = cols / 32 + 16, every row shared by at least 32 threads) and from the
/// row's condition max|x| / spread: the error of a float mean grows with the size of the values, not
/// with their spread, and the tolerance says so.

// Types shared by both tracks (defined once, whatever the track).
#ifndef WORKBOOK_CH04_TYPES
#define WORKBOOK_CH04_TYPES
#include "common/cuda_check.hpp"
#include "common/track.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace ch04 {
/// The longest row stage 4 (one warp per row, the row in registers) must support.
inline constexpr std::int64_t kWarpRegistersMaxCols = 1024;
}   // namespace ch04
#endif

namespace WORKBOOK_TRACK {

/// @brief Stage 1: statistics kernel, then an elementwise normalisation kernel.
///
/// Kernel 1 gives each row a block that computes the mean (a block reduction), then the variance
/// as the mean of (x - mean)^2 (a second pass over the row, a second reduction): the two-pass
/// formula, accurate whatever the mean. It writes mean and rstd to global memory. Kernel 2, one
/// thread per element, reads them back and writes y. x is read three times in all.
/// One thread per row (two loops over the row in float, the first thing most people write) is
/// allowed too: the tolerance of this stage is that of a chain of cols float additions.
/// @param x input, rows x cols
/// @param gamma,beta scale and shift, cols values each
/// @param y output, rows x cols
/// @param mean,rstd outputs, one float per row
/// @param eps added to the variance (drawn per case by the grader: 1e-5, 1e-3, 0.1, 1)
/// Checked: cols from 1 to 65537, constant rows, values near 1e4 with a spread of 1, scales from
/// 1e-12 to 1e12. No speed target (first stage); its bandwidth is shown.
void layernorm_1_two_kernels(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                             std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream);

/// @brief Stage 2: one warp per row, one pass for sum(x) and sum(x^2), one kernel.
///
/// The textbook shortcut var = E[x^2] - E[x]^2 needs a single pass for both moments, and a warp
/// per row needs no barrier (chapter 3). It is fast, and it is wrong for data whose mean is large
/// next to its spread: E[x^2] and E[x]^2 are then two huge, almost equal numbers, and their float
/// difference is mostly rounding error. The grader prints what it does on such an input but does
/// not fail the stage for it: the lesson of stage 3 is to see it fail first.
/// Checked: as stage 1 on inputs whose rows have mean^2 + var <= 16 (var + eps), the spread not
/// small next to the mean. On the others (values near 1e4 with a spread of 1, constant rows, rows
/// of one value) the result is shown, not required. Speed against reference stage 1 on
/// 65536 x 1024 floats.
void layernorm_2_warp_naive(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                            std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream);

/// @brief Stage 3: one warp per row with Welford's algorithm and a warp merge.
///
/// Each lane keeps a running (count, mean, m2) over its columns (ch04::welford_update) and the
/// warp merges the 32 states with shuffles (wb::warp_allreduce<wb::WelfordMerge>): one pass, no cancellation.
/// Checked: as stage 1, the ill-conditioned input included; speed against reference stage 1 (the
/// last stage that is right on every input) on 65536 x 1024 floats.
void layernorm_3_warp_welford(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                              std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream);

/// @brief Stage 4: one warp per row, the row in registers, vector loads, x read once.
///
/// With the row in registers the exact two-pass variance costs no memory traffic: mean first,
/// then the mean of (x - mean)^2 from the registers. 16-byte loads when cols % 4 == 0.
/// Supports cols <= ch04::kWarpRegistersMaxCols (1024); the grader tests only those.
/// Checked: as stage 3 for cols <= 1024; speed against reference stage 3 on 65536 x 1024 floats.
void layernorm_4_warp_registers(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                float* rstd, std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream);

/// @brief Stage 5: one block per row, the row cached in shared memory, x read once.
///
/// For rows too long for a warp's registers, a block keeps its row in (dynamic) shared memory and
/// makes the two passes of the statistics and the output pass over it.
/// Supports rows whose cols * 4 bytes fit in a block's shared memory (the grader tests up to
/// 32771 when the GPU allows).
/// Checked: as stage 3; speed against reference stage 3 (the warp stage that handles long rows)
/// on 8192 x 8192 floats.
void layernorm_5_block_smem(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                            std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream);

/// @brief Stage 6: a production LayerNorm that picks its kernel by row length (fp32).
///
/// - cols <= 2048: the row in registers, in groups of 1 to 32 lanes with two rows per group for
///   short rows;
/// - longer rows that fit in shared memory: stage 5, block size chosen with occupancy queries;
/// - longer still: one block per row running Welford over global memory, then a second read.
/// Checked: cols from 1 to 65537 (all three paths); speed against reference stage 4 on
/// 2097152 x 32 floats. `make bench` compares it with PyTorch.
void layernorm_6_dispatch(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                          std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream);

/// @brief Stage 6 on __half data (x, gamma, beta, y in half; statistics, mean and rstd in float).
/// Checked: y within half an fp16 ulp plus the float bound; cols from 1 to 131073.
void layernorm_6_dispatch_half(const __half* x, const __half* gamma, const __half* beta, __half* y, float* mean,
                               float* rstd, std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream);

/// @brief Stage 6 on __nv_bfloat16 data (statistics, mean and rstd in float).
/// Checked: y within half a bf16 ulp plus the float bound; cols from 1 to 131073.
void layernorm_6_dispatch_bf16(const __nv_bfloat16* x, const __nv_bfloat16* gamma, const __nv_bfloat16* beta,
                               __nv_bfloat16* y, float* mean, float* rstd, std::int64_t rows, std::int64_t cols,
                               float eps, cudaStream_t stream);

}   // namespace WORKBOOK_TRACK
