// Chapter 4, stage 5: one block per row, the row cached in shared memory.          (your exercise)
//
// Write the kernel and the launch. The contract (sizes, alignment, what is checked) is in
// chapters/04_layernorm/stages.cuh; the lesson is chapters/04_layernorm/README.md.
// Grade it with `make check-chapter 4`. You may change anything in this file except the
// launcher's name and parameters. `make hint CH=4 STAGE=5` when stuck.
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {

constexpr int kThreads = 256;

template <int kPack>
using Pack = wb::Pack<float, kPack>;   // kPack floats moved as one access (common/primitives.cuh)

template <int kPack>
__global__ void __launch_bounds__(kThreads)
    layernorm_smem_kernel(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                          float* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd, int cols,
                          float eps)
{
    // TODO: extern __shared__ __align__(16) unsigned char smem[]; viewed as Pack<kPack>, holds the row.
    //       Loop over the packs (p = threadIdx.x; p < cols / kPack; p += kThreads): load from x,
    //       store to shared memory, sum. mean = wb::block_reduce_sum<kThreads>(...) / cols (its
    //       __syncthreads publishes the cached row). Sum of (v - mean)^2 from shared memory,
    //       reduced: rstd. Thread 0 writes mean[row], rstd[row]; the last loop writes y.
}

}   // namespace
//@ end
//@ outline
// TODO: a kernel in which a block owns a row, caches it in shared memory while reducing the mean, then reduces the
//       variance and writes the outputs from that cache, so that global memory is read once.
//@ end

void layernorm_5_block_smem(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                            std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    //@ guided
    // TODO: kPack = 4, 2 or 1; smem = cols * sizeof(float); cudaFuncSetAttribute(kernel,
    //       cudaFuncAttributeMaxDynamicSharedMemorySize, smem) (needed above 48 KB); launch one
    //       block of kThreads per row with smem bytes of dynamic shared memory.
    //@ end
    //@ outline
    // TODO: launch your kernel on `stream` with the grid, block and shared memory you choose, then
    //       check the launch with WB_CHECK_LAUNCH.
    //@ end
    (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)rows, (void)cols, (void)eps, (void)stream;
}

}   // namespace WORKBOOK_TRACK
