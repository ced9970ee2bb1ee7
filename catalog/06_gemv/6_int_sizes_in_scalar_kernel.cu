// Catalog, chapter 6, stage 6: the kernel for unaligned rows (K % 4 != 0) takes M and K as int.
// expect: crashed "32 bits"
// emulated: skip "the emulated shapes stay far below 2^31 elements, the GPU grader runs 16777259 x 131"
//
// The reference dispatch with one of its three kernels written "for sizes that fit in an int": the
// scalar kernel for rows that are not 16-byte aligned, the path the benchmark never takes. M and K do
// fit, but row * K is then an int product, negative past element 2^31 - 1. The float4 kernels are
// right, so the case past the int range with K = 132 passes; the one with K = 131 (16777259 rows,
// 8.2 GiB, run where the GPU has 13 GiB free) takes this kernel, and its rows from 16393005 on read
// before A: an illegal memory access, which the grader must explain as a 32-bit index. One case past
// 2^31 per kind of row is what catches a bug in only one branch of a dispatch. On a GPU without the
// memory the case is skipped and this entry passes.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// Groups of G lanes; each group owns R rows (the warp's rows are interleaved so that each of its
/// R loads covers 32 / G consecutive rows). K % 4 == 0 only.
template <int G, int R>
__global__ void __launch_bounds__(kThreads) gemv_rows_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                                             float* __restrict__ y, std::int64_t M, std::int64_t K)
{
    constexpr int kGroups = wb::kWarpSize / G;   // groups per warp
    const int lane = threadIdx.x % G;
    const int group = (threadIdx.x % wb::kWarpSize) / G;
    const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x) / wb::kWarpSize;
    const std::int64_t first_row = warp * kGroups * R + group;   // rows first_row + j * kGroups, j < R
    const std::int64_t vectors = K / 4;
    const auto* A4 = reinterpret_cast<const float4*>(A);
    const auto* x4 = reinterpret_cast<const float4*>(x);

    float sum[R];
#pragma unroll
    for (int j = 0; j < R; ++j) sum[j] = 0.0f;
    for (std::int64_t k = lane; k < vectors; k += G) {
        const float4 xv = __ldg(&x4[k]);
        float4 av[R];
#pragma unroll
        for (int j = 0; j < R; ++j) {   // R independent loads before any arithmetic
            const std::int64_t row = first_row + j * kGroups;
            av[j] = row < M ? __ldcs(&A4[row * vectors + k]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
#pragma unroll
        for (int j = 0; j < R; ++j) sum[j] += dot4(av[j], xv);
    }
#pragma unroll
    for (int j = 0; j < R; ++j) {
        const float total = wb::warp_reduce_sum<G>(sum[j]);   // every lane takes part, rows past M too
        const std::int64_t row = first_row + j * kGroups;
        if (lane == 0 && row < M) y[row] = total;
    }
}

/// One block per row. K % 4 == 0 only.
__global__ void __launch_bounds__(kThreads)
    gemv_block_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, std::int64_t K)
{
    __shared__ float scratch[kThreads / wb::kWarpSize];
    const std::int64_t vectors = K / 4;
    const auto* a4 = reinterpret_cast<const float4*>(A + static_cast<std::int64_t>(blockIdx.x) * K);
    const auto* x4 = reinterpret_cast<const float4*>(x);
    float sum = 0.0f;
    for (std::int64_t k = threadIdx.x; k < vectors; k += kThreads) sum += dot4(a4[k], __ldg(&x4[k]));
    sum = wb::block_reduce_sum<kThreads>(sum, scratch);
    if (threadIdx.x == 0) y[blockIdx.x] = sum;
}

/// Rows that are not 16-byte aligned (K % 4 != 0): scalar loads, groups of G lanes per row.
template <int G>
__global__ void gemv_scalar_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                   int M, int K)   // the bug: sizes in 32 bits, so row * K is an int product
{
    const int row = (static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x)) / G;
    const int lane = threadIdx.x % G;
    float sum = 0.0f;
    if (row < M) {
        const float* a = A + row * K;
        for (int k = lane; k < K; k += G) sum += a[k] * __ldg(&x[k]);
    }
    sum = wb::warp_reduce_sum<G>(sum);
    if (row < M && lane == 0) y[row] = sum;
}

template <int G, int R>
void launch_rows(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    constexpr std::int64_t rows_per_block = kThreads / G * R;
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, rows_per_block));
    gemv_rows_kernel<G, R><<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    WB_CHECK_LAUNCH();
}

template <int G>
void launch_scalar(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M * G, kThreads));
    gemv_scalar_kernel<G><<<blocks, kThreads, 0, stream>>>(A, x, y, static_cast<int>(M), static_cast<int>(K));
    WB_CHECK_LAUNCH();
}

}   // namespace

void gemv_6_dispatch(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    if (K % 4 != 0) {   // unaligned rows: scalar loads (checked, not tuned: the benchmark has K % 4 == 0)
        if (K <= 8) return launch_scalar<4>(A, x, y, M, K, stream);
        if (K <= 32) return launch_scalar<8>(A, x, y, M, K, stream);
        return launch_scalar<32>(A, x, y, M, K, stream);
    }
    const std::int64_t vectors = K / 4;
    // Short rows: G = the smallest power of two >= K / 4, at most 16; 4 rows per group.
    if (vectors <= 1) return launch_rows<1, 4>(A, x, y, M, K, stream);
    if (vectors <= 2) return launch_rows<2, 4>(A, x, y, M, K, stream);
    if (vectors <= 4) return launch_rows<4, 4>(A, x, y, M, K, stream);
    if (vectors <= 8) return launch_rows<8, 4>(A, x, y, M, K, stream);
    if (vectors <= 32) return launch_rows<16, 4>(A, x, y, M, K, stream);   // K = 36 .. 128
    // Medium rows (K = 132 .. 4092): a warp per row. A block per row starts paying from K = 4096:
    // below that a block has too little to do for its barriers and its start-up (measured).
    if (vectors < 1024) return launch_rows<32, 1>(A, x, y, M, K, stream);
    gemv_block_kernel<<<static_cast<unsigned>(M), kThreads, 0, stream>>>(A, x, y, K);   // K >= 4096
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
