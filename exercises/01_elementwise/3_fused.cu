// Chapter 1, stage 3: y = act(a + b) in one kernel.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/01_elementwise/stages.cuh; the lesson is chapters/01_elementwise/README.md.
// Grade it with `make check-chapter 1`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=1 STAGE=3` when stuck.
#include "01_elementwise/activation.cuh"
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel that adds and applies the activation in one pass, so that the sum never travels to memory and back:
//       one read of each input and one write of the output.

void add_act_3_fused(const float* a, const float* b, float* y, std::int64_t n, ch01::Activation act,
                     cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)a, (void)b, (void)y, (void)n, (void)act, (void)stream;
}

}   // namespace WORKBOOK_TRACK
