// Chapter 9, stage 4: tensor cores: mma.sync for Q K^T and P V, P in registers. (your exercise)
//
// Write the kernels and the launch. The contract (layouts, the causal mask, masked rows, what is checked)
// is in chapters/09_attention/stages.cuh; the lesson is chapters/09_attention/README.md.
// Grade it with `make check-chapter 9` (an NVIDIA GPU, or the CPU emulator). You may change anything in
// this file except the launcher's name and parameters. `make hint CH=9 STAGE=4` when stuck.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ outline
// TODO: stage 3's kernel with both matrix products on the tensor cores, the probabilities kept in registers between
//       them, in the layout the second product needs.
//@ end

void attention_4_mma(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype, void* o,
                     float* lse, cudaStream_t stream)
{
    //@ guided
    // TODO: a block of 4 warps per 64 query rows, 16 rows per warp; Q fragments (wb::ldmatrix_x4) kept in registers.
    // TODO: per tile of keys: S = Q K^T with wb::mma_m16n8k16 (K tile in shared memory, ldmatrix), scale, mask.
    // TODO: row max and sum over the 4 lanes that share a row (__shfl_xor_sync 1 and 2), rescale the O accumulators.
    // TODO: pack P into 16-bit A fragments and mma with V (ldmatrix.trans); at the end O / l and lse.
    // TODO: needs compute capability 8.0 (the grader skips it below).
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)shape, (void)q, (void)k, (void)v, (void)dtype, (void)o, (void)lse, (void)stream;
}

}   // namespace WORKBOOK_TRACK
