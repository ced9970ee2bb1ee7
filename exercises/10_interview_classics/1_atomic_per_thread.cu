// Chapter 10, stage 1: the sum with one atomicAdd per element. (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/10_interview_classics/stages.cuh; the lesson is chapters/10_interview_classics/README.md.
// Grade it with `make check-chapter 10`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=10 STAGE=1` when stuck.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel in which each thread adds its one element of the input into the output atomically.

void sum_1_atomic_per_thread(const float* in, float* out, std::int64_t n, cudaStream_t stream)
{
    // TODO: the output holds NaN when you are called; make it a valid starting value, then launch your
    //       kernel on `stream` with a thread for every element.
    (void)in, (void)out, (void)n, (void)stream;
}

}   // namespace WORKBOOK_TRACK
