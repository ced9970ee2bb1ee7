// Chapter 4, stage 6: a LayerNorm that picks its kernel by row length; fp32, fp16, bf16.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/04_layernorm/stages.cuh; the lesson is chapters/04_layernorm/README.md.
// Grade it with `make check-chapter 4`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=4 STAGE=6` when stuck.
#include "04_layernorm/stages.cuh"
#include "04_layernorm/welford.cuh"
#include "common/primitives.cuh"
#include "common/smem_row.hpp"

namespace WORKBOOK_TRACK {

// TODO: a kernel that holds short rows in registers, a warp or a group of lanes per row.
// TODO: a kernel for medium rows: a block per row, the row cached in shared memory.
// TODO: a kernel for rows too long for shared memory, reading the row twice; the launchers pick one of the three by row
//       length and element type.

void layernorm_6_dispatch(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                          std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps, (void)stream;
}

void layernorm_6_dispatch_half(const __half* x, const __half* gamma, const __half* beta, __half* y, float* mean,
                               float* rstd, std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps, (void)stream;
}

void layernorm_6_dispatch_bf16(const __nv_bfloat16* x, const __nv_bfloat16* gamma, const __nv_bfloat16* beta,
                               __nv_bfloat16* y, float* mean, float* rstd, std::int64_t rows, std::int64_t cols,
                               float eps, cudaStream_t stream)
{
    // TODO: pick the kernel for this shape and launch it on `stream` with the grid, block and shared
    //       memory you choose, then check the launch with WB_CHECK_LAUNCH.
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps, (void)stream;
}

}   // namespace WORKBOOK_TRACK
