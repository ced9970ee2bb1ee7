// Chapter 5, stage 4: transpose through a padded [32][33] shared-memory tile.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/05_transpose/stages.cuh; the lesson is chapters/05_transpose/README.md.
// Grade it with `make check-chapter 5`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=5 STAGE=4` when stuck.
#include "05_transpose/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: stage 3's kernel with the shared tile padded by one column, so that reading a column of the tile touches every
//       bank once instead of one bank many times.

void transpose_4_padded_tile(const float* in, float* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)in, (void)out, (void)rows, (void)cols, (void)stream;
}

}   // namespace WORKBOOK_TRACK
