// Chapter 9, stage 3: tiled: 64 queries per block, K/V tiles through shared memory. (your exercise)
//
// Write the kernels and the launch. The contract (layouts, the causal mask, masked rows, what is checked)
// is in chapters/09_attention/stages.cuh; the lesson is chapters/09_attention/README.md.
// Grade it with `make check-chapter 9` (an NVIDIA GPU, or the CPU emulator). You may change anything in
// this file except the launcher's name and parameters. `make hint CH=9 STAGE=3` when stuck.
#include "09_attention/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

void attention_3_tiled(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                       void* o, float* lse, cudaStream_t stream)
{
    // TODO: a block of 256 threads per 64 query rows (8 per warp), Q rows in shared memory as floats.
    // TODO: loop over tiles of 32 keys up to the last key the block's last row sees: load K and V tiles into shared
    //       memory (fp32, K rows padded), __syncthreads(), compute, __syncthreads() before the next tile.
    // TODO: lane l scores key l of the tile for the warp's rows; per row the tile maximum (warp reduction),
    //       m' = max(m, tile max), p = exp(s - m'), rescale o and the per-lane partial sum by exp(m - m').
    // TODO: P through shared memory (one 8 x 32 tile per warp, __syncwarp()), o[rows][dims] += p * V.
    // TODO: at the end the sum across the warp, O = o / l, lse = m + log(l); empty rows O = 0, lse = -INFINITY.
    (void)shape, (void)q, (void)k, (void)v, (void)dtype, (void)o, (void)lse, (void)stream;
}

}   // namespace WORKBOOK_TRACK
