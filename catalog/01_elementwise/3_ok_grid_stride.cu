// expect: passed
//
// Chapter 1, stage 3, with a fixed grid and a grid-stride loop: 512-thread blocks, exactly as many
// as the GPU holds at once (SMs x resident blocks per SM, asked once through the runtime API), and
// each thread walks the float4 vectors with a stride of the whole grid. The kernel asks for the
// L1-heavy carveout (it uses no shared memory), a hint that changes nothing about the result. A
// right kernel: the grader must pass it, on the CPU emulator and on a GPU.
#include "01_elementwise/activation.cuh"
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kBlockThreads = 512;

template <ch01::Activation act>
__global__ void __launch_bounds__(kBlockThreads)
    add_act_grid_stride_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ y,
                               std::int64_t n)
{
    using ch01::activate;
    const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    const std::int64_t vectors = n / 4;
    const auto* a4 = reinterpret_cast<const float4*>(a);
    const auto* b4 = reinterpret_cast<const float4*>(b);
    auto* y4 = reinterpret_cast<float4*>(y);
    for (std::int64_t i = first; i < vectors; i += stride) {
        const float4 p = a4[i];
        const float4 q = b4[i];
        y4[i] = make_float4(activate<act>(p.x + q.x), activate<act>(p.y + q.y), activate<act>(p.z + q.z),
                            activate<act>(p.w + q.w));
    }
    if (first < n % 4) {   // the last n % 4 elements, one thread each
        const std::int64_t t = vectors * 4 + first;
        y[t] = activate<act>(a[t] + b[t]);
    }
}

/// Blocks of @p kernel that the whole GPU holds at once, asked once per kernel.
template <ch01::Activation act>
unsigned resident_grid()
{
    static const unsigned blocks = [] {
        const auto kernel = add_act_grid_stride_kernel<act>;
        WB_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxL1));
        int device = 0, sms = 0, per_sm = 0;
        WB_CUDA_CHECK(cudaGetDevice(&device));
        WB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        WB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlockThreads, 0));
        return static_cast<unsigned>(std::max(1, sms * per_sm));
    }();
    return blocks;
}

template <ch01::Activation act>
void launch(const float* a, const float* b, float* y, std::int64_t n, cudaStream_t stream)
{
    // No more blocks than there is work for (a tiny n gets one block), never more than one wave.
    const std::int64_t threads_needed = std::max<std::int64_t>(n / 4, n % 4);
    const auto needed = static_cast<unsigned>(wb::ceil_div<std::int64_t>(threads_needed, kBlockThreads));
    const unsigned blocks = std::max(1u, std::min(needed, resident_grid<act>()));
    add_act_grid_stride_kernel<act><<<blocks, kBlockThreads, 0, stream>>>(a, b, y, n);
    WB_CHECK_LAUNCH();
}

}   // namespace

void add_act_3_fused(const float* a, const float* b, float* y, std::int64_t n, ch01::Activation act,
                     cudaStream_t stream)
{
    if (act == ch01::Activation::relu) {
        launch<ch01::Activation::relu>(a, b, y, n, stream);
    } else {
        launch<ch01::Activation::sigmoid>(a, b, y, n, stream);
    }
}

}   // namespace WORKBOOK_TRACK
