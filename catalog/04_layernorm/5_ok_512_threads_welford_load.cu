// Catalog, chapter 4, stage 5: 512-thread blocks, Welford while the row is cached, one pass over shared memory (a RIGHT kernel in another style).
// expect: passed
//
// The reference caches the row in shared memory and makes two statistics passes and an output pass
// over it with 256 threads. This port uses blocks of 512 threads and computes the statistics during
// the one read of x, with Welford's update per element (each thread over its own packs) and one block
// merge of the states (wb::block_allreduce<wb::WelfordMerge, 512>, whose first barrier also publishes
// the cached row); the only pass over shared memory is the output pass. Fewer passes, a division per
// element instead: as accurate (Welford is right on every input) and one read of x. Right: the grader
// must pass it, on the CPU emulator and on a GPU, speed check included.
#include "04_layernorm/stages.cuh"
#include "04_layernorm/welford.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 512;

template <int kPack>
using Pack = wb::Pack<float, kPack>;

template <int kPack>
__global__ void __launch_bounds__(kThreads)
    layernorm_smem_welford_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                  const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                                  float* __restrict__ rstd, int cols, float eps)
{
    extern __shared__ __align__(16) unsigned char smem[];
    auto* cache = reinterpret_cast<Pack<kPack>*>(smem);
    __shared__ ch04::Welford scratch[kThreads / wb::kWarpSize];
    const std::int64_t row = blockIdx.x;
    const auto* xr = reinterpret_cast<const Pack<kPack>*>(x + row * cols);
    auto* yr = reinterpret_cast<Pack<kPack>*>(y + row * cols);
    const auto* g = reinterpret_cast<const Pack<kPack>*>(gamma);
    const auto* b = reinterpret_cast<const Pack<kPack>*>(beta);
    const int packs = cols / kPack;

    ch04::Welford state;
    for (int p = threadIdx.x; p < packs; p += kThreads) {   // the only read of x
        const Pack<kPack> v = xr[p];
        cache[p] = v;
#pragma unroll
        for (int i = 0; i < kPack; ++i) ch04::welford_update(state, v.v[i]);
    }
    state = wb::block_allreduce<wb::WelfordMerge, kThreads, wb::Scratch::last_use>(state, scratch);
    const float mu = state.mean;
    const float r = rsqrtf(state.m2 / state.count + eps);
    if (threadIdx.x == 0) {
        mean[row] = mu;
        rstd[row] = r;
    }

    for (int p = threadIdx.x; p < packs; p += kThreads) {
        const Pack<kPack> v = cache[p];
        const Pack<kPack> gp = g[p];
        const Pack<kPack> bp = b[p];
        Pack<kPack> out;
#pragma unroll
        for (int i = 0; i < kPack; ++i) out.v[i] = (v.v[i] - mu) * r * gp.v[i] + bp.v[i];
        yr[p] = out;
    }
}

template <int kPack>
void launch(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
            std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    const std::size_t smem = static_cast<std::size_t>(cols) * sizeof(float);
    WB_CUDA_CHECK(cudaFuncSetAttribute(layernorm_smem_welford_kernel<kPack>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    layernorm_smem_welford_kernel<kPack><<<static_cast<unsigned>(rows), kThreads, smem, stream>>>(
        x, gamma, beta, y, mean, rstd, static_cast<int>(cols), eps);
    WB_CHECK_LAUNCH();
}

}   // namespace

void layernorm_5_block_smem(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                            std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    if (cols % 4 == 0) return launch<4>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    if (cols % 2 == 0) return launch<2>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    launch<1>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
}

}   // namespace WORKBOOK_TRACK
