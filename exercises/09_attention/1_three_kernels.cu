// Chapter 9, stage 1: three kernels: scores to global memory, row softmax, P V. (your exercise)
//
// Write the kernels and the launch. The contract (layouts, the causal mask, masked rows, what is checked)
// is in chapters/09_attention/stages.cuh; the lesson is chapters/09_attention/README.md.
// Grade it with `make check-chapter 9` (an NVIDIA GPU, or the CPU emulator). You may change anything in
// this file except the launcher's name and parameters. `make hint CH=9 STAGE=1` when stuck.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

void attention_1_three_kernels(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                               void* o, float* lse, cudaStream_t stream)
{
    // TODO: a workspace of batch * heads * q_len * kv_len floats: cudaMallocAsync on `stream`, cudaFreeAsync after the
    //       last kernel.
    // TODO: kernel 1, one thread per score: S = scale * q_i . k_j in fp32, -INFINITY where
    //       ch09::visible_keys(shape, i) <= j (causal, bottom-right aligned).
    // TODO: kernel 2, one warp per row of S: max m, l = sum exp(S - m), P = exp(S - m) / l in place, lse = m + log(l);
    //       a row with no visible key (m = -inf) gets P = 0 and lse = -INFINITY, never NaN.
    // TODO: kernel 3, one thread per element of O: sum_j P[i][j] * V[j][d] in fp32, written as T (wb::from_float<T>).
    // TODO: T = __half when dtype == ch08::Dtype::f16, __nv_bfloat16 otherwise; launch on `stream`, WB_CHECK_LAUNCH().
    (void)shape, (void)q, (void)k, (void)v, (void)dtype, (void)o, (void)lse, (void)stream;
}

}   // namespace WORKBOOK_TRACK
