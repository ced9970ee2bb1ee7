// Chapter 1, stage 2: c = a + b with float4 loads and stores.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/01_elementwise/stages.cuh; the lesson is chapters/01_elementwise/README.md.
// Grade it with `make check-chapter 1`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=1 STAGE=2` when stuck.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel that moves four floats per load and per store (one wide access each), so that fewer, wider memory
//       instructions carry the same bytes; the elements past the last whole group of four still need handling.

void add_2_vectorized(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)a, (void)b, (void)c, (void)n, (void)stream;
}

}   // namespace WORKBOOK_TRACK
