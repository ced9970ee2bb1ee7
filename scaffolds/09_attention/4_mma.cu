// Chapter 9, stage 4: attention on tensor cores, FlashAttention-2 style.              (your exercise)
//
// Write the kernel and the launch. The contract (layouts, sizes, the causal alignment, what is checked)
// is in chapters/09_attention/stages.cuh; the lesson is chapters/09_attention/README.md.
// Grade it with `make check-chapter 9` (a GPU of compute capability 8.0 or newer, or the CPU emulator).
// You may change anything in this file except the launcher's name and parameters. `make hint CH=9 STAGE=4`
// when stuck.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"
#include "common/tensor_core.cuh"

namespace WORKBOOK_TRACK {

//@ outline
// TODO: stage 3's kernel with both matrix products on the tensor cores, the probabilities kept in registers between
//       them, in the layout the second product needs.
//@ end

void attention_4_mma(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype, void* o,
                     float* lse, cudaStream_t stream)
{
    //@ guided
    // TODO: a block of 4 warps per 64 query rows of one (batch, head), 16 rows per warp; Q fragments loaded
    //       once with wb::ldmatrix_x4 and kept in registers.
    // TODO: per tile of 64 keys: K and V into shared memory (zeros past kv_len), S = Q K^T with
    //       wb::mma_m16n8k16 (K fragments by wb::ldmatrix_x4), scale and mask, the online softmax on the
    //       accumulators (row max and sum over the 4 lanes of a quad), O rescaled, then O += P V with P
    //       packed from the S accumulators (wb::pack2_from_floats<T>) and V by wb::ldmatrix_x4_trans.
    // TODO: the epilogue: O / l in the input type, lse = max + ln(l); a row with no visible key gets O = 0,
    //       lse = -inf. Launch on `stream` for T = __half (dtype == ch08::Dtype::f16) or __nv_bfloat16, for
    //       head_dim 64 or 128, then WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)shape, (void)q, (void)k, (void)v, (void)dtype, (void)o, (void)lse, (void)stream;
}

}   // namespace WORKBOOK_TRACK
