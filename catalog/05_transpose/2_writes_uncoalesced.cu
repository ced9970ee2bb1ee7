// Catalog, chapter 5, stage 2: stage 1's kernel handed in as stage 2 (the writes stay uncoalesced).
// expect: too-slow "too slow"
// emulated: too-slow "global writes use 8.0x the sectors of reference stage 2"
//
// Right values, wrong idea: consecutive lanes still read consecutive floats of an input row and write
// them down a column of the output, so every warp-wide store touches 32 sectors for 128 useful bytes.
// On a GPU it runs at about the speed of stage 1, far below the x2.5 the stage asks. On the CPU emulator
// nothing is timed, but the memory-behaviour counters see the stores: 32 sectors per 128 bytes where
// reference stage 2 needs 4, and no better than reference stage 1, so the verdict is "too slow" with
// the word the chapter teaches: uncoalesced.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kWarpAlongRow = 32;   // lanes walk along an input row ...
constexpr int kRowsPerBlock = 8;

__global__ void transpose_rows_to_columns(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows,
                                          std::int64_t cols)
{
    const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * kWarpAlongRow + threadIdx.x;
    const std::int64_t r = static_cast<std::int64_t>(blockIdx.y) * kRowsPerBlock + threadIdx.y;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];   // ... so they write down a column
}

}   // namespace

void transpose_2_coalesced_writes(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                                  cudaStream_t stream)
{
    const dim3 block(kWarpAlongRow, kRowsPerBlock);
    const dim3 grid(static_cast<unsigned>(wb::ceil_div<std::int64_t>(cols, kWarpAlongRow)),
                    static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock)));
    transpose_rows_to_columns<<<grid, block, 0, stream>>>(in, out, rows, cols);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
