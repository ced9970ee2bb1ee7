// Chapter 9, stage 5: cp.async double-buffered K/V, swizzled shared memory, causal tiles skipped. (your exercise)
//
// Write the kernels and the launch. The contract (layouts, the causal mask, masked rows, what is checked)
// is in chapters/09_attention/stages.cuh; the lesson is chapters/09_attention/README.md.
// Grade it with `make check-chapter 9` (an NVIDIA GPU, or the CPU emulator). You may change anything in
// this file except the launcher's name and parameters. `make hint CH=9 STAGE=5` when stuck.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ outline
// TODO: stage 4's kernel with the next key and value tiles copied asynchronously while the current ones are used,
//       shared memory swizzled instead of padded, and the tiles that the causal mask hides entirely skipped.
//@ end

void attention_5_pipelined(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                           void* o, float* lse, cudaStream_t stream)
{
    //@ guided
    // TODO: stage 4 with two K/V buffers filled by ch08::cp_async16 / cp_async_commit / cp_async_wait<1>: the copy of
    //       tile t + 1 runs while tile t is computed.
    // TODO: an XOR swizzle of the 16-byte chunks instead of padding (one offset function for writes and ldmatrix).
    // TODO: stop at the last tile the block's last row sees; mask only the tiles that cross the diagonal.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)shape, (void)q, (void)k, (void)v, (void)dtype, (void)o, (void)lse, (void)stream;
}

}   // namespace WORKBOOK_TRACK
