// Chapter 9, stage 6: decode: split-KV over many blocks, partials merged through their lse. (your exercise)
//
// Write the kernels and the launch. The contract (layouts, the causal mask, masked rows, what is checked)
// is in chapters/09_attention/stages.cuh; the lesson is chapters/09_attention/README.md.
// Grade it with `make check-chapter 9` (an NVIDIA GPU, or the CPU emulator). You may change anything in
// this file except the launcher's name and parameters. `make hint CH=9 STAGE=6` when stuck.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel for decoding (few query rows, long key sequences) that splits each row's keys into chunks, a block per
//       chunk, each writing a partial output and the log of its partial normaliser.
// TODO: a kernel that merges the partial results of each row, weighting each by its normaliser through the logs, so
//       that nothing overflows.

void attention_6_decode_split_kv(const ch09::Shape& shape, const void* q, const void* k, const void* v,
                                 ch08::Dtype dtype, void* o, float* lse, cudaStream_t stream)
{
    // TODO: launch your kernels in order on `stream` with the grids, blocks and shared memory you choose, then
    //       check each launch with WB_CHECK_LAUNCH.
    (void)shape, (void)q, (void)k, (void)v, (void)dtype, (void)o, (void)lse, (void)stream;
}

}   // namespace WORKBOOK_TRACK
