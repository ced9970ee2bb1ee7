// Chapter 4, stage 5: one block per row, the row cached in shared memory.          (reference solution)
//
// Why it is faster than stage 3 on long rows: a warp per row re-reads a long row from memory for
// the output pass (8192 floats per row times thousands of rows in flight do not stay in cache), and
// a single warp keeps few loads in flight per row. Here a block loads its row once, with 16-byte
// loads, into shared memory; the two passes of the statistics and the output pass read shared
// memory. x is read from global memory once, whatever the row length, as long as the row fits.
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

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
    extern __shared__ __align__(16) unsigned char smem[];
    auto* cache = reinterpret_cast<Pack<kPack>*>(smem);   // the row: cols floats
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t row = blockIdx.x;
    const auto* xr = reinterpret_cast<const Pack<kPack>*>(x + row * cols);
    auto* yr = reinterpret_cast<Pack<kPack>*>(y + row * cols);
    const auto* g = reinterpret_cast<const Pack<kPack>*>(gamma);
    const auto* b = reinterpret_cast<const Pack<kPack>*>(beta);
    const int packs = cols / kPack;
    const float n = static_cast<float>(cols);

    float sum = 0.0f;
#pragma unroll 4
    for (int p = threadIdx.x; p < packs; p += kThreads) {   // the only read of x
        const Pack<kPack> v = xr[p];
        cache[p] = v;
#pragma unroll
        for (int i = 0; i < kPack; ++i) sum += v.v[i];
    }
    const float mu = wb::block_reduce_sum<kThreads>(sum, scratch) / n;   // its barrier publishes the cache

    float squares = 0.0f;
    for (int p = threadIdx.x; p < packs; p += kThreads) {
        const Pack<kPack> v = cache[p];
#pragma unroll
        for (int i = 0; i < kPack; ++i) {
            const float d = v.v[i] - mu;
            squares += d * d;
        }
    }
    const float r = rsqrtf(wb::block_reduce_sum<kThreads>(squares, scratch) / n + eps);
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
    // Above 48 KB a kernel must opt in to more dynamic shared memory.
    WB_CUDA_CHECK(cudaFuncSetAttribute(layernorm_smem_kernel<kPack>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem)));
    layernorm_smem_kernel<kPack><<<static_cast<unsigned>(rows), kThreads, smem, stream>>>(x, gamma, beta, y, mean, rstd,
                                                                                          static_cast<int>(cols), eps);
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
