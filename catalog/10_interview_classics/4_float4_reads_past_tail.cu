// Catalog, chapter 10, stage 4: float4 loads of the last, partial vector, its extra lanes masked but read.
// expect: wrong "memcheck found"
// emulated: crashed "read past the end of an input array"
//
// A vectorised grid dot product: every thread loads x and y four floats at a time over ceil(n / 4)
// vectors, and for the last vector it multiplies only the lanes below n. The learner reasons that the
// extra lanes are never used, so reading them is harmless, and that cudaMalloc rounds allocations up
// anyway. But the contract gives the pointers' alignment, not padding: up to 12 bytes past the end of
// x and of y are read whenever n % 4 != 0. The numbers are right; the read is out of bounds (on a GPU
// it faults when the array ends at a page boundary, and memcheck reports it on the small cases,
// where the grader's buffers have no guard bytes: on an H200 memcheck reported a float4 load of a
// 4-byte allocation as "out of bounds ... inside the nearest allocation of size 4 bytes"). The CPU
// emulator must see the load reach the guard, as its message promises ("a vector load over the last
// partial vector"), although the load starts inside the array.
#include "10_interview_classics/stages.cuh"
#include "common/primitives.cuh"

#include <algorithm>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    grid_dot4_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, std::int64_t n)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float4* y4 = reinterpret_cast<const float4*>(y);
    const std::int64_t vectors = (n + 3) / 4;   // the bug: the last vector reaches past n
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
    float v = 0.0f;
    for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; k < vectors; k += stride) {
        const float4 a = x4[k], b = y4[k];
        const std::int64_t base = 4 * k;
        v = fmaf(a.x, b.x, v);
        if (base + 1 < n) v = fmaf(a.y, b.y, v);
        if (base + 2 < n) v = fmaf(a.z, b.z, v);
        if (base + 3 < n) v = fmaf(a.w, b.w, v);
    }
    v = wb::block_reduce_sum<kThreads>(v, scratch);
    if (threadIdx.x == 0) atomicAdd(out, v);
}

}   // namespace

void dot_4_grid_atomic(const float* x, const float* y, float* out, std::int64_t n, cudaStream_t stream)
{
    static const int max_blocks = std::min(wb::resident_blocks(grid_dot4_kernel, kThreads), 4096);
    const auto blocks = static_cast<unsigned>(std::max<std::int64_t>(
        1, std::min<std::int64_t>(max_blocks, wb::ceil_div<std::int64_t>(wb::ceil_div<std::int64_t>(n, 4), kThreads))));
    WB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    grid_dot4_kernel<<<blocks, kThreads, 0, stream>>>(x, y, out, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
