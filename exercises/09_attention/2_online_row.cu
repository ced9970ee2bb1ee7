// Chapter 9, stage 2: one fused kernel: a warp per query row, online softmax. (your exercise)
//
// Write the kernels and the launch. The contract (layouts, the causal mask, masked rows, what is checked)
// is in chapters/09_attention/stages.cuh; the lesson is chapters/09_attention/README.md.
// Grade it with `make check-chapter 9` (an NVIDIA GPU, or the CPU emulator). You may change anything in
// this file except the launcher's name and parameters. `make hint CH=9 STAGE=2` when stuck.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

void attention_2_online_row(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                            void* o, float* lse, cudaStream_t stream)
{
    // TODO: one warp per query row (a grid-stride loop over batch * heads * q_len rows); q * scale in shared memory,
    //       the output row in registers, head_dim / 32 consecutive dims per lane.
    // TODO: walk the visible keys (ch09::visible_keys) 32 at a time: lane l scores key j0 + l, a warp max gives the
    //       chunk's maximum, m' = max(m, chunk max); rescale l and o by exp(m - m') (0 when m = -inf).
    // TODO: p = exp(s - m'); __shfl_sync hands each key's p to all lanes, o += p * v[key][my dims].
    // TODO: O = o / l (as T), lse = m + log(l); no visible key: O = 0 and lse = -INFINITY.
    (void)shape, (void)q, (void)k, (void)v, (void)dtype, (void)o, (void)lse, (void)stream;
}

}   // namespace WORKBOOK_TRACK
