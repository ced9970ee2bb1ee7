/// @file 10_interview_classics/stages.cuh
/// @brief Chapter 10, interview classics: the contract of every stage.
///
/// Each function below is a host *launcher*: you write the kernel(s) and choose the launch
/// configuration inside it. The grader calls the launcher with device pointers and a stream; put
/// all your work on that stream (cudaMemsetAsync on that stream counts as work on it).
///
/// Common input contract for this chapter:
/// - every pointer comes from cudaMalloc (aligned to at least 256 bytes);
/// - n >= 1 and may be any size: 1, 31, 33, a prime, 2^24 + 3 ... (not a multiple of anything);
///   index with std::int64_t;
/// - no input is NaN (the lesson says what NaN would do to a maximum built on atomics);
/// - stages 1 to 4 write ONE float to `out[0]` and nothing else in `out`. The grader fills `out`
///   with NaN before each call: a stage that adds into `out[0]` with atomicAdd must set it to 0
///   first, on the stream, or every result is NaN;
/// - stage 5 writes `out[0 .. n-1]`; `workspace` holds ch10::kWorkspaceFloats floats of device
///   memory, filled with NaN by the grader before each call: a stage sets what it keeps there.
///
/// Accuracy. Atomics fix no order of the additions: two runs of the same stage on the same input
/// may differ in the last bits, and the grader cannot ask for one particular rounding. A float sum
/// whose longest chain of additions through any one value is `depth` long is within
/// depth * 2^-24 * sum|x_i| of the exact sum, whatever the order. The grader allows depth = n for
/// stage 1 (one chain through a single address) and depth = min(n, ceil(n / 128) + 32) for the
/// others, which holds for any block of at least 128 threads that reduces its values before its one
/// atomic. Sums of small integers are exact in any order, and are checked exactly: one element lost
/// or counted twice fails.

// Types shared by both tracks (defined once, whatever the track).
#ifndef WORKBOOK_CH10_TYPES
#define WORKBOOK_CH10_TYPES
#include "common/cuda_check.hpp"
#include "common/track.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace ch10 {

/// Floats of `workspace` the grader gives stage 5 (room for a maximum, a sum and anything else a
/// stage wants to keep: counters, flags).
inline constexpr std::int64_t kWorkspaceFloats = 64;

}   // namespace ch10
#endif

namespace WORKBOOK_TRACK {

/// @brief Stage 1: the sum with one atomicAdd per element, into one float.
///
/// The shortest correct parallel sum: thread i does atomicAdd(out, in[i]). Every atomic goes to the
/// same address, so the memory system performs them one after another: n serialised
/// read-modify-writes, whatever the number of SMs. The order of the additions changes from run to
/// run, so the last bits of the result do too.
/// Checked (stages 1 and 2): exact sums of small integers for n = 1 ... 65537, every call twice;
/// uniform floats in [-1, 1) within the tolerance above; one -inf (result -inf); nothing written past
/// out[0]; the input left unchanged. No speed target (first stage); its bandwidth is shown.
void sum_1_atomic_per_thread(const float* in, float* out, std::int64_t n, cudaStream_t stream);

/// @brief Stage 2: a block reduction first, then one atomicAdd per block.
///
/// Each thread sums its share in a register, each block reduces its threads' values (shuffles,
/// wb::block_reduce_sum), and thread 0 adds the block's sum into out[0]: a few hundred atomics
/// instead of n.
/// Checked: as stage 1; speed against reference stage 1.
void sum_2_block_then_atomic(const float* in, float* out, std::int64_t n, cudaStream_t stream);

/// @brief Stage 3: the dot product sum(x[i] * y[i]) computed by one block.
///
/// The classic first CUDA exercise: one block strides over both vectors, reduces its products and
/// writes out[0]; no atomic is needed. Correct, and one SM does all the work while the others idle.
/// Checked (stages 3 and 4): exact dot products of small integers for the sizes of stage 1, every
/// call twice; uniform floats within depth * 2^-24 * sum|x_i y_i| (depth counts the product's
/// rounding too); a -inf product; nothing written past out[0]. Stage 3 alone: its launch runs one
/// block (a grid is stage 4's idea). No speed target (the first dot product); its bandwidth is shown.
void dot_3_one_block(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream);

/// @brief Stage 4: the dot product with a whole grid and one atomicAdd per block.
///
/// Stage 3's block, repeated over a grid sized to the GPU: every SM streams its share of x and y,
/// and each block adds its partial product sum into out[0] once.
/// Checked: as stage 3; speed against reference stage 3.
void dot_4_grid_atomic(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream);

/// @brief Stage 5: softmax over a whole vector, out[i] = exp(x[i] - max) / sum_j exp(x[j] - max).
///
/// Three passes over the vector: the maximum (each block reduces its values, then one float
/// atomicMax per block, built on atomicCAS since CUDA has no float atomicMax), the sum of
/// exp(x - max) (one atomicAdd per block), and the normalisation. max and sum live in `workspace`
/// and must be set by the stage before the passes (the grader fills the workspace with NaN).
/// Input: at least one finite value; -inf is allowed (its output is 0); no NaN.
/// Checked: n = 1 ... 65537 on uniform values in [-8, 8); every value equal (each output 1/n,
/// checked within 2 (3 ln n + 32) units of 2^-24); every value negative, the maximum -0.0 (an atomicMax by int
/// bits, or a test `v >= 0` that sends -0.0 to the int path, fails it); every value near -1e30 or in
/// [-120, -100) (the maximum must be subtracted); -inf among finite values; one finite value among
/// -inf; huge values. The tolerance is chapter 3's, with this file's depth. No speed target (an
/// operation of its own); its bandwidth is shown.
void softmax_5_whole_vector(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream);

}   // namespace WORKBOOK_TRACK
