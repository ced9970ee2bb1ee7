// Chapter 9, stage 5: the tensor-core attention with its copies overlapped.           (your exercise)
//
// Write the kernel and the launch. The contract (layouts, sizes, the causal alignment, what is checked)
// is in chapters/09_attention/stages.cuh; the lesson is chapters/09_attention/README.md.
// Grade it with `make check-chapter 9` (a GPU of compute capability 8.0 or newer, or the CPU emulator).
// You may change anything in this file except the launcher's name and parameters. `make hint CH=9 STAGE=5`
// when stuck.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"
#include "common/tensor_core.cuh"

namespace WORKBOOK_TRACK {

//@ outline
// TODO: stage 4's kernel with the next key and value tiles copied asynchronously while the current ones are used,
//       shared memory swizzled instead of padded, and the tiles that the causal mask hides entirely skipped.
//@ end

void attention_5_pipelined(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                           void* o, float* lse, cudaStream_t stream)
{
    //@ guided
    // TODO: stage 4 with K and V copied by cp.async (ch08::cp_async16, cp_async_commit, cp_async_wait) into
    //       two buffers each: the copy of tile t + 1 runs while tile t is computed.
    // TODO: unpadded shared rows, chunk c of row r stored at chunk c ^ (r % 8), through one function used by
    //       both the copies and the ldmatrix addresses; with 64-key tiles, addresses that cost no registers
    //       (nvcc -Xptxas -v shows the spills).
    // TODO: exp2 (wb::exp2_fast) with log2(e) folded into the scale; no mask arithmetic on the tiles that need
    //       none; causal tiles above the diagonal never loaded. Launch on `stream`, then WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)shape, (void)q, (void)k, (void)v, (void)dtype, (void)o, (void)lse, (void)stream;
}

}   // namespace WORKBOOK_TRACK
