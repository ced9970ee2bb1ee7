// Chapter 4, stage 3: one warp per row, Welford's algorithm and a warp merge.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/04_layernorm/stages.cuh; the lesson is chapters/04_layernorm/README.md.
// Grade it with `make check-chapter 4`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=4 STAGE=3` when stuck.
#include "04_layernorm/stages.cuh"
#include "04_layernorm/welford.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

__global__ void __launch_bounds__(kThreads)
    layernorm_warp_welford_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                  const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                                  float* __restrict__ rstd, std::int64_t rows, std::int64_t cols, float eps)
{
    // TODO: stage 2's mapping. Each lane: ch04::Welford state; ch04::welford_update(state, x) for
    //       its columns (c = lane; c += 32). Then state = wb::warp_allreduce<wb::WelfordMerge>(state):
    //       every lane has the row's mean and m2. rstd = rsqrtf(m2 / count + eps); lane 0 writes
    //       mean[row], rstd[row]; a second loop writes y. (Read welford.cuh: try to derive the
    //       merge formula yourself before you look at it.)
}

}   // namespace
//@ end
//@ outline
// TODO: stage 2's kernel with each lane keeping a running mean and a sum of squared deviations (Welford), merged across
//       the warp with the pairwise formula, so that the variance stays accurate when the mean is large.
//@ end

void layernorm_3_warp_welford(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                              std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    //@ guided
    // TODO: ceil(rows / kRowsPerBlock) blocks of kThreads; WB_CHECK_LAUNCH().
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps, (void)stream;
}

}   // namespace WORKBOOK_TRACK
