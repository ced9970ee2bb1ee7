// Chapter 1, stage 2: c = a + b with float4 loads and stores.          (reference solution)
//
// Why it is faster: one 16-byte access moves four floats, so the kernel issues a quarter of the
// load/store instructions and index computations of stage 1 for the same bytes. Fewer instructions
// per byte leaves the memory system, not the instruction issue, as the only limit.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

__global__ void add_vectorized_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                      std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t vectors = n / 4;   // whole float4s; cudaMalloc pointers are 16-byte aligned
    if (i < vectors) {
        const float4 x = reinterpret_cast<const float4*>(a)[i];
        const float4 y = reinterpret_cast<const float4*>(b)[i];
        reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    // The last n % 4 (at most 3) elements do not fill a float4: threads 0, 1, 2 take one each.
    const std::int64_t tail = vectors * 4 + i;
    if (i < n % 4) c[tail] = a[tail] + b[tail];
}

}   // namespace

void add_2_vectorized(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    const std::int64_t threads_needed = std::max<std::int64_t>(n / 4, n % 4);   // n < 4: tail only
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(threads_needed, kThreads));
    add_vectorized_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
