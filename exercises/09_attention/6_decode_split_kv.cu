// Chapter 9, stage 6: decode: split-KV over many blocks, partials merged through their lse. (your exercise)
//
// Write the kernels and the launch. The contract (layouts, the causal mask, masked rows, what is checked)
// is in chapters/09_attention/stages.cuh; the lesson is chapters/09_attention/README.md.
// Grade it with `make check-chapter 9` (an NVIDIA GPU, or the CPU emulator). You may change anything in
// this file except the launcher's name and parameters. `make hint CH=9 STAGE=6` when stuck.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

void attention_6_decode_split_kv(const ch09::Shape& shape, const void* q, const void* k, const void* v,
                                 ch08::Dtype dtype, void* o, float* lse, cudaStream_t stream)
{
    // TODO: choose a number of chunks of keys per query row from the number of rows and of SMs; a workspace
    //       (cudaMallocAsync on `stream`) for one partial O (head_dim floats) and one lse per (row, chunk).
    // TODO: kernel 1, one block per (row, chunk): groups of head_dim / 8 lanes each read one key (16 bytes per lane),
    //       keep an online (m, l, o) each, merge in shared memory; write o / l and m + log(l) (-inf if empty).
    // TODO: kernel 2, per row: lse = max_s + log(sum_s exp(lse_s - max_s)); O = sum_s exp(lse_s - lse) * o_s;
    //       a row with no visible key gets O = 0 and lse = -INFINITY.
    (void)shape, (void)q, (void)k, (void)v, (void)dtype, (void)o, (void)lse, (void)stream;
}

}   // namespace WORKBOOK_TRACK
