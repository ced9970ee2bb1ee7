// Chapter 5, stage 2: transpose, one thread per element, coalesced writes, strided __ldg reads.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/05_transpose/stages.cuh; the lesson is chapters/05_transpose/README.md.
// Grade it with `make check-chapter 5`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=5 STAGE=2` when stuck.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: the other choice: consecutive threads write along a row of the output, so that the writes are coalesced and the
//       reads are strided, through the read-only data cache.

void transpose_2_coalesced_writes(const float* in, float* out, std::int64_t rows, std::int64_t cols,
                                  cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)in, (void)out, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
