// Chapter 7, stage 9: an FMA order the register file likes, the ragged K step first, and stream-K
// scheduling for the last wave.          (your exercise)
//
// Write the kernels and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/07_sgemm/stages.cuh; the lesson is chapters/07_sgemm/README.md; the stream-K schedule
// (which block computes which tiles and K steps) is ready in chapters/07_sgemm/stream_k.hpp.
// Grade it with `make check-chapter 7`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=7 STAGE=9` when stuck.
#include "07_sgemm/epilogue.cuh"
#include "07_sgemm/stages.cuh"
#include "07_sgemm/stream_k.hpp"
#include "common/primitives.cuh"

#include <cuda_pipeline.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace WORKBOOK_TRACK {

// TODO: a kernel of whole tiles, stage 8's pipeline with an FMA order that spares the register file, and the partial K
//       step handled where the main loop never meets it.
// TODO: a kernel of one wave of blocks, each taking an equal share of the K steps of the tiles left over after the
//       whole waves, so that no SM idles at the end.
// TODO: a kernel that adds the partial sums of each tile that was split between blocks, in a fixed order.

void sgemm_9_stream_k(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                      cudaStream_t stream)
{
    // TODO: build the schedule with the chapter's stream-K helper, launch your kernels on `stream`, and
    //       check each launch with WB_CHECK_LAUNCH.
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;
}

}   // namespace WORKBOOK_TRACK
