// Chapter 1, stage 4: y = act(a + b) on __half data, arithmetic in float.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/01_elementwise/stages.cuh; the lesson is chapters/01_elementwise/README.md.
// Grade it with `make check-chapter 1`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=1 STAGE=4` when stuck.
#include "01_elementwise/activation.cuh"
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel on half-precision data that loads and stores pairs of halves as one access and does its arithmetic in
//       float, converting on the way in and out; take care of an odd element at the end.

void add_act_4_half2(const __half* a, const __half* b, __half* y, std::int64_t n, ch01::Activation act,
                     cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)a, (void)b, (void)y, (void)n, (void)act, (void)stream;
}

}   // namespace WORKBOOK_TRACK
