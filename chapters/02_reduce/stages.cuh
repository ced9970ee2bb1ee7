/// @file 02_reduce/stages.cuh
/// @brief Chapter 2, reduce: the contract of every stage.
///
/// Each function below is a host *launcher*: you write the kernel(s) and choose the launch
/// configuration inside it. The grader calls the launcher with device pointers and a stream; put
/// all your work on that stream.
///
/// Common input contract for this chapter:
/// - every pointer comes from cudaMalloc, so it is aligned to at least 256 bytes (float4 loads of
///   `in`, `x` and `y` are legal);
/// - n >= 1 and may be any size: 1, 31, 33, a prime, 2^26 + 3 ... (not a multiple of anything);
/// - the result is ONE float, written to `out[0]` (device memory) and nowhere else in `out`; the
///   grader fills `out` with NaN before each call, so a stage must write it, not add to it;
/// - `workspace` holds at least ch02::workspace_floats(n) floats of device memory for partial sums
///   and counters. The grader zero-fills it once, before the first call, and then passes the same
///   workspace to every call of the stage: a stage that keeps a counter there must leave it at
///   zero when it is done. Other workspace contents may be left as they are;
/// - indices can pass 2^31 on large GPUs: index with int64_t. On a GPU with the memory for it the
///   grader runs every stage once on n = 2^31 + 2^28 + 3 inputs that are all 1 (the sum is n).
///
/// Accuracy (what "correct" means for a float sum): each float addition rounds with relative error
/// at most 2^-24, so a sum whose longest chain of additions through any one value is `depth` long is
/// within depth * 2^-24 * sum|x_i| of the exact sum. The grader allows depth = min(n, 8192): keep
/// each thread's running sum below about 8000 additions (any grid sized to the GPU does) and
/// finish with a tree. Sums of small integers are checked exactly: they are exact in any order.

// Types shared by both tracks (defined once, whatever the track).
#ifndef WORKBOOK_CH02_TYPES
#define WORKBOOK_CH02_TYPES
#include "common/cuda_check.hpp"
#include "common/track.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

namespace ch02 {

/// Floats of `workspace` the grader provides for n inputs: one partial sum per 32 inputs (room for
/// every pass of a multi-pass stage together) plus 8192 floats for a whole grid's partial sums and
/// a counter.
inline constexpr std::int64_t workspace_floats(std::int64_t n) { return (n + 31) / 32 + 8192; }

/// The multi-pass driver of stages 1 to 6 (read it: it is short).
///
/// A kernel of those stages reduces each block's slice of `count` values to one partial sum, so one
/// launch turns n values into ceil(n / per_block) partial sums. This launches again on the partial
/// sums until a single block is left; that last launch writes straight to `out`. Partial sums
/// alternate between two regions of `workspace`, so a pass never overwrites what it reads.
/// @param per_block values one block reduces (256 for one value per thread of a 256-thread block);
///        at least 64, so that all passes fit in ch02::workspace_floats(n)
/// @param pass a callable `pass(const float* src, float* dst, std::int64_t count, unsigned blocks)`
///        that launches your kernel with `blocks` blocks on the stage's stream: block b writes the sum
///        of src[b * per_block ...] (values past `count` count as 0) to dst[b]. It should end with
///        WB_CHECK_LAUNCH().
template <typename Pass>
void reduce_in_passes(const float* in, float* out, std::int64_t n, float* workspace, std::int64_t per_block,
                      Pass&& pass)
{
    if (per_block < 64) throw std::invalid_argument("reduce_in_passes: a block must reduce at least 64 values");
    float* const regions[2] = {workspace, workspace + (n + per_block - 1) / per_block};
    const float* src = in;
    std::int64_t count = n;
    for (int p = 0;; ++p) {
        const std::int64_t blocks = (count + per_block - 1) / per_block;
        float* dst = blocks == 1 ? out : regions[p % 2];
        pass(src, dst, count, static_cast<unsigned>(blocks));
        if (blocks == 1) return;
        src = dst;
        count = blocks;
    }
}

}   // namespace ch02
#endif

namespace WORKBOOK_TRACK {

/// @brief Stage 1: tree reduction in shared memory, interleaved addressing with a divergent branch.
///
/// Each thread loads one element into shared memory; then, for stride s = 1, 2, 4, ..., every thread
/// whose index is a multiple of 2s adds its neighbour at distance s. Correct, but slow: `tid % (2*s)`
/// is an expensive integer operation, and the working threads are spread over every warp, so while
/// s <= 16 every warp keeps running (diverged) while most of its lanes do nothing.
/// Partial sums per block are reduced by further launches (ch02::reduce_in_passes).
/// Checked (every stage): exact sums of small integers for n = 1 ... 3 * 2^20 + 1, every call twice
/// on the same workspace; uniform floats within the tolerance above; one -inf (result -inf); values
/// near 1e30 (no overflow); all-equal values; nothing written past out[0]; the input left unchanged.
/// No speed target (first stage); its bandwidth is shown.
void sum_1_interleaved_divergent(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream);

/// @brief Stage 2: the same tree, with the work given to the first threads (no divergence).
///
/// Thread tid handles index 2 * s * tid, so the active threads are packed into the first warps:
/// whole warps finish early instead of every warp running half-empty, and the modulo is gone. New
/// problem: lanes of one warp access words 2*s apart, which fall into the same shared-memory banks
/// (32 banks of 4 bytes) from s = 1 on, and the hardware serialises them (bank conflicts: up to
/// 8-way on a 256-thread block).
/// Checked: as stage 1; speed against reference stage 1.
void sum_2_strided_index(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream);

/// @brief Stage 3: sequential addressing, the tree run backwards.
///
/// For s = blockDim.x / 2, ..., 1, thread tid < s adds sdata[tid + s] into sdata[tid]. Consecutive
/// threads access consecutive words: one word per bank, no conflicts.
/// Checked: as stage 1; speed against reference stage 2.
void sum_3_sequential_addressing(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream);

/// @brief Stage 4: first add during load.
///
/// In stage 3 half the threads are idle from the first step on. Let each block cover twice as many
/// elements: every thread loads two values and stores their sum in shared memory. Half the blocks,
/// and each thread does useful work before the tree starts.
/// Checked: as stage 1; speed against reference stage 3.
void sum_4_first_add_during_load(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream);

/// @brief Stage 5: unroll the last warp, the correct way (shuffles).
///
/// When s <= 32 only one warp is still working, yet every step pays a __syncthreads() and a loop
/// test. Stop the shared-memory tree at 64 values and let warp 0 finish with register shuffles
/// (`__shfl_down_sync`), which need no barrier. The old trick, a `volatile` shared-memory pointer
/// and no synchronisation at all, assumes a warp runs in lock-step: since Volta (independent thread
/// scheduling) it is a data race, and the compiler and the hardware are free to break it.
/// Checked: as stage 1; speed against reference stage 4.
void sum_5_unroll_last_warp(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream);

/// @brief Stage 6: complete unrolling, with the block size as a template parameter.
///
/// With `template <int kBlock>` every loop bound and `tid < s` test is a compile-time constant: the
/// compiler unrolls the whole tree and drops the tests that are always true or always false.
/// Checked: as stage 1; speed against reference stage 5.
void sum_6_complete_unroll(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream);

/// @brief Stage 7: many elements per thread, with a grid sized to the GPU.
///
/// Launch only as many blocks as the GPU can hold at once (SMs times blocks per SM); each thread
/// sums many elements in a register with a grid-stride loop before the one block reduction. The
/// per-block cost (the tree, the barriers, the partial sum) is paid a thousand times instead of
/// n / 512 times, and a second launch of a single block sums the grid's partials.
/// Workspace: at most 4096 partial sums (keep the grid below that).
/// Checked: as stage 1; speed against reference stage 6.
void sum_7_many_per_thread(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream);

/// @brief Stage 8: the block reduction with warp shuffles.
///
/// Each warp reduces its 32 values in registers (`__shfl_down_sync`, five steps, no shared memory,
/// no barrier); lane 0 of each warp stores the warp's sum; after a single __syncthreads() warp 0
/// reduces those sums with shuffles again. One barrier instead of one per tree level. The later
/// chapters use the same construction from common/primitives.cuh (wb::block_reduce_sum, written
/// with xor shuffles so that every thread receives the sum).
/// Checked: as stage 1; the launch keeps less than one shared-memory slot (4 bytes) per thread of a
/// block (the reference gains too little over stage 7 on some GPUs for speed alone to tell a copy of
/// stage 7); speed against reference stage 7.
void sum_8_warp_shuffle(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream);

/// @brief Stage 9: float4 loads, several loads in flight, and a single launch.
///
/// Three changes finish the job: 16-byte loads (a quarter of the load instructions), several
/// independent loads issued before the first is used (enough bytes in flight to cover the memory
/// latency), and one launch instead of two: the last block to finish sums the grid's partial sums
/// (a counter in the workspace, taken with atomicAdd after a __threadfence()), or every block adds
/// its partial to a zeroed `*out` with atomicAdd. The last stage of the sum: it must reach CUB's
/// `DeviceReduce::Sum` (see `make bench`).
/// Alignment: `in` is 16-byte aligned; n need not be a multiple of 4.
/// Workspace: as before; a counter kept there must be back at 0 when the launch ends (every
/// case is called twice on the same workspace).
/// Checked: as stage 1; speed against reference stage 8.
void sum_9_vectorized_single_pass(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream);

/// @brief Stage 10: the dot product sum(x[i] * y[i]), an application of stage 9.
///
/// The same single-pass reduction, with the product computed in registers (fmaf) as the values
/// arrive: 8 bytes read per element. The baseline it must beat is the unfused way: multiply into a
/// temporary array, then sum that array with reference stage 9 (16 bytes moved per element).
/// @param x,y inputs, n floats each, 16-byte aligned
/// Checked: exact dot products of small integers for the sizes of stage 1, called twice; uniform
/// floats within depth * 2^-24 * sum|x_i * y_i| (each product is one more rounding: depth counts
/// it); one -inf product; products near 1e30; speed against the unfused pair.
void dot_10_dot_product(const float* x, const float* y, float* out, std::int64_t n, float* workspace,
                        cudaStream_t stream);

}   // namespace WORKBOOK_TRACK
