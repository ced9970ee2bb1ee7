/// @file 05_transpose/stages.cuh
/// @brief Chapter 5, out-of-place matrix transpose: the contract of every stage.
///
/// Each function below is a host *launcher*: you write the kernel and choose the launch
/// configuration (grid, block, shared memory) inside it. The grader calls it with device pointers and
/// a stream; put all your work on that stream.
///
/// Common input contract for this chapter:
/// - `in` is a `rows x cols` fp32 matrix, row-major: element (r, c) is `in[r * cols + c]`;
/// - `out` receives its transpose, a `cols x rows` matrix, row-major: `out[c * rows + r] = in[r * cols + c]`;
/// - 1 <= rows, cols <= 500000, any values (1 x 1, 33 x 17, 1000 x 3001 are all tested), so a grid of
///   ceil(cols / 32) x ceil(rows / 8) blocks, or the other way round, is always legal (gridDim.y
///   is limited to 65535);
/// - rows * cols may pass 2^31: index with std::int64_t;
/// - every pointer comes from cudaMalloc (256-byte aligned); `in` and `out` never overlap.
///
/// What is checked, for every stage: every element of the output, bit for bit (a transpose moves
/// values and computes nothing, so the only tolerance is none), on square, tall, wide and tiny
/// shapes, shapes that are not multiples of any tile or vector width, 70001 x 3 and 3 x 70001 (more
/// rows, or columns, than one block per row or column along y allows), on a GPU also 500000 x 3 and
/// 3 x 500000 (the contract's limit, where only a grid.y of ceil(side / 8) or less fits), one large shape
/// (16384 x 16384, checked on the GPU element by element, see grader/grade.cpp). Then the speed against
/// the previous reference stage on a 8192 x 12288 matrix, with the achieved bandwidth shown as a
/// fraction of the device's copy bandwidth (a transpose moves exactly the bytes of a copy).

// Types shared by both tracks (defined once, whatever the track).
#ifndef WORKBOOK_CH05_TYPES
#define WORKBOOK_CH05_TYPES
#include "common/cuda_check.hpp"
#include "common/track.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#endif

namespace WORKBOOK_TRACK {

/// @brief Stage 1: one thread per element, reads coalesced, writes strided.
///
/// Thread (x, y) of the grid copies element (r, c) = (y, x): a warp reads 32 consecutive floats of
/// an input row (one 128-byte line), but writes them into 32 different output rows, `rows * 4`
/// bytes apart, so every store of a warp touches 32 separate lines of which it fills 4 bytes each.
/// The baseline of the chapter: it shows what an uncoalesced access costs.
/// Checked: every element, exact. No speed target; its bandwidth is shown.
void transpose_1_naive(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// @brief Stage 2: the same thread-per-element kernel with the roles swapped: writes coalesced,
/// reads strided through the read-only cache (`__ldg`).
///
/// Consecutive threads now write consecutive floats of an output row and read down a column of the
/// input. A strided read costs a 32-byte sector for 4 useful bytes, but the sector stays in L1 and
/// the neighbouring threads of the block (the other rows of the block) use the rest of it; a
/// strided write leaves partly written lines in L2 that must be merged before they go to memory.
/// Reads are the cheaper side to leave uncoalesced.
/// Checked: every element, exact; speed against reference stage 1.
void transpose_2_coalesced_writes(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                                  cudaStream_t stream);

/// @brief Stage 3: a 32 x 32 tile through shared memory: both global accesses coalesced.
///
/// A block of 32 x 8 threads reads a 32 x 32 tile with coalesced row reads (four rows per
/// thread) into `__shared__ float tile[32][32]`, waits at `__syncthreads()`, then writes the
/// transposed tile with coalesced row writes, reading the tile down a column. That column read is
/// the catch: the 32 floats of a column are 32 * 4 = 128 bytes apart, one full turn of the 32
/// four-byte banks of shared memory, so all 32 lanes of the warp hit the same bank and the read is
/// serialised 32 ways (a 32-way bank conflict). Keep the tile unpadded here: the next stage
/// measures what the conflict costs.
/// Checked: every element, exact, including partial tiles at the right and bottom edges; a block
/// keeps at least a 32 x 32 tile of floats in shared memory; speed against reference stage 2.
void transpose_3_shared_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// @brief Stage 4: the same tile padded to `[32][33]`: no bank conflicts.
///
/// One extra float per row shifts row k of the tile by k banks, so the 32 floats of a column sit in
/// 32 different banks and the column read takes one shared-memory pass instead of 32. The 32 extra
/// floats cost 128 bytes of shared memory per block. Everything else is stage 3.
/// Checked: as stage 3; speed against reference stage 3.
void transpose_4_padded_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// @brief Stage 5: the padded tile with 32 x 4 threads, eight elements per thread.
///
/// The same 32 x 32 tile, but each thread copies eight elements (rows y, y + 4, ..., y + 28):
/// eight independent loads in flight per thread before the barrier instead of four, so the same
/// number of resident threads keeps twice the bytes in flight, and the index arithmetic and
/// bounds tests are shared by more elements.
/// Checked: as stage 3; each thread moves at least eight elements (read off the launch: elements
/// over threads); speed against reference stage 4.
void transpose_5_multi_element(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// @brief Stage 6: 64 x 64 tiles with 8-byte (float2) global accesses, walked down the columns.
///
/// Each block of 32 x 8 threads moves a 64 x 64 tile: a warp reads or writes 64 floats of a row
/// (256 contiguous bytes, two full lines) per instruction, with one float2 per lane, and each
/// thread moves 16 elements. Inside the tile the pairs are split into single floats (a padded
/// `[64][65]` tile), since a column of the tile is not contiguous. The grid's x runs down the rows
/// of the input: blocks that run at the same time take tiles below each other, so they write
/// neighbouring parts of the same output rows (long runs for the writes, scattered reads).
/// float2 accesses need 8-byte aligned addresses: a row of `in` starts at `in + r * cols`, aligned
/// only when cols is even (and the same for `out` and rows), so tiles of matrices with other
/// shapes, and partial tiles at the edges, take a scalar path.
/// Checked: as stage 3, with odd and even sizes on both sides; a block moves at least a 64 x 64
/// tile (read off the launch); speed against reference stage 5.
/// The chapter's goal: at least 93% of the copy bandwidth on a 16384 x 16384 matrix (`make bench`).
void transpose_6_vectorized(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

}   // namespace WORKBOOK_TRACK
