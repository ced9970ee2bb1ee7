// Chapter 4, stage 5: one block per row, the row cached in shared memory.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/04_layernorm/stages.cuh; the lesson is chapters/04_layernorm/README.md.
// Grade it with `make check-chapter 4`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=4 STAGE=5` when stuck.
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

// TODO: a kernel in which a block owns a row, caches it in shared memory while reducing the mean, then reduces the
//       variance and writes the outputs from that cache, so that global memory is read once.

void layernorm_5_block_smem(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                            std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps, (void)stream;
}

}   // namespace WORKBOOK_TRACK
