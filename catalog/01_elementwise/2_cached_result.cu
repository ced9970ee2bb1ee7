// Catalog, chapter 1, stage 2: a repeated call with the same arguments is skipped.
// expect: wrong "cached"
//
// The launcher remembers the arguments of its last call and returns at once when they repeat, on the
// theory that the output already holds the answer. Every correctness case uses new buffers, so they all
// pass; the timing loop then measures nothing. The recheck after timing (output poisoned again, same
// arguments) must find the output unwritten and call it a result cached across calls.
#include "01_elementwise/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

__global__ void add_vectorized_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                      std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t vectors = n / 4;
    if (i < vectors) {
        const float4 x = reinterpret_cast<const float4*>(a)[i];
        const float4 y = reinterpret_cast<const float4*>(b)[i];
        reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    const std::int64_t tail = vectors * 4 + i;
    if (i < n % 4) c[tail] = a[tail] + b[tail];
}

struct LastCall {
    const float* a = nullptr;
    const float* b = nullptr;
    float* c = nullptr;
    std::int64_t n = 0;
};

}   // namespace

void add_2_vectorized(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    static LastCall last;
    if (a == last.a && b == last.b && c == last.c && n == last.n) return;   // the bug: "already done"
    last = {a, b, c, n};
    constexpr int kThreads = 256;
    const std::int64_t threads_needed = std::max<std::int64_t>(n / 4, n % 4);
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(threads_needed, kThreads));
    add_vectorized_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, n);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
