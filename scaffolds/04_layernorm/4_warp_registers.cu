// Chapter 4, stage 4: one warp per row, the row in registers, vector loads.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/04_layernorm/stages.cuh; the lesson is chapters/04_layernorm/README.md.
// Grade it with `make check-chapter 4`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=4 STAGE=4` when stuck.
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

#include <stdexcept>

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

template <int kPack>
using Pack = wb::Pack<float, kPack>;   // kPack floats moved as one access (common/primitives.cuh)

template <int kPack, int kColsPerLane>
__global__ void __launch_bounds__(kThreads)
    layernorm_warp_registers_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                    const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                                    float* __restrict__ rstd, std::int64_t rows, int cols, float eps)
{
    // TODO: float v[kColsPerLane] (unrolled loops only). Lane l loads pack p at column
    //       (p * 32 + l) * kPack when it is inside the row (0 otherwise) and sums it;
    //       mean = wb::warp_reduce_sum(sum) / cols. Second pass over the registers: the sum of
    //       (v - mean)^2 over the elements inside the row; rstd = rsqrtf(reduced / cols + eps).
    //       Lane 0 writes mean[row], rstd[row]; store y pack by pack with gamma and beta packs.
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which a warp reads its row once, with vector loads, into registers sized at compile time, computes
//       the mean, then the variance around it from those registers, and writes the outputs.
//@ end

void layernorm_4_warp_registers(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                float* rstd, std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    //@ guided
    // TODO: kPack = 4, 2 or 1 (the widest that divides cols), kColsPerLane = the smallest power of
    //       two >= max(kPack, ceil(cols / 32)); launch the matching instance (see chapter 3 stage 4).
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps, (void)stream;
}

}   // namespace WORKBOOK_TRACK
