// Chapter 10, stage 2: a block reduction, then one atomicAdd per block. (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/10_interview_classics/stages.cuh; the lesson is chapters/10_interview_classics/README.md.
// Grade it with `make check-chapter 10`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=10 STAGE=2` when stuck.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel in which each block sums its share of the input without atomics, then adds its one
//       result into the output atomically.

void sum_2_block_then_atomic(const float* in, float* out, std::int64_t n, cudaStream_t stream)
{
    // TODO: prepare the output, then launch a grid sized to the GPU on `stream`.
    (void)in, (void)out, (void)n, (void)stream;
}

}   // namespace WORKBOOK_TRACK
