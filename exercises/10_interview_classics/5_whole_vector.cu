// Chapter 10, stage 5: softmax over a whole vector. (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/10_interview_classics/stages.cuh; the lesson is chapters/10_interview_classics/README.md.
// Grade it with `make check-chapter 10`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=10 STAGE=5` when stuck.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a float atomic maximum built on atomicCAS (CUDA has no atomicMax for float).
// TODO: a kernel that gives the workspace its starting values.
// TODO: a kernel for the maximum of the vector, kept in the workspace.
// TODO: a kernel for the sum of the exponentials of each element less that maximum, kept in the workspace.
// TODO: a kernel that writes the output from the two.

void softmax_5_whole_vector(const float* in, float* out, std::int64_t n, float* workspace, cudaStream_t stream)
{
    // TODO: set the workspace's starting values (it holds NaN when you are called), then run the
    //       passes on `stream`.
    (void)in, (void)out, (void)n, (void)workspace, (void)stream;
}

}   // namespace WORKBOOK_TRACK
