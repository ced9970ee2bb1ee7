// Catalog, chapter 6, stage 4: each lane of a group loads exactly one float4, with no test against the row's length.
// expect: wrong "elements are wrong"
// emulated: crashed "read past the end of an input array"
//
// The learner reads the contract's rule "G is the smallest power of two with 4 G >= K" as "every lane
// of a group owns exactly one float4 of the row", and writes the short-row kernel without a loop and
// without a bound: lane l of a group of G < 32 lanes loads float4 l of its row, whatever K is. That is
// right when K / 4 is exactly G (K = 4, 8, 16, 32, 64), and the grader's short rows with K % 4 == 0 are
// exactly those. For any other short row, say K = 20 (five float4s, G = 8) or K = 48 (twelve, G = 16),
// the lanes past the row's last float4 read the first floats of the next row and add them in (the last
// row reads past the end of A). A grader must try short rows whose length in float4s is not a power of
// two (K = 12, 20, 24, 28, 36 ... 124) and reject it on its first exact case. Before the grader had
// such rows, an H200 and the CPU emulator passed it (x5.52 over reference stage 3 on the GPU); the
// emulator now stops at the read past the end of x, which a GPU lets through.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/// Group width G (a power of two <= 32); kFloat4: K % 4 == 0, 16-byte loads, else scalar loads.
template <int G, bool kFloat4>
__global__ void gemv_group_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                  std::int64_t M, std::int64_t K)
{
    const std::int64_t row = (static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x) / G;
    const int lane = threadIdx.x % G;
    float sum = 0.0f;
    if (row < M) {
        if constexpr (kFloat4 && G < 32) {
            // the bug: "4 G >= K, so each lane has one float4": no test of lane < K / 4
            const auto* a4 = reinterpret_cast<const float4*>(A + row * K);
            const auto* x4 = reinterpret_cast<const float4*>(x);
            sum = dot4(a4[lane], __ldg(&x4[lane]));
        } else if constexpr (kFloat4) {
            const auto* a4 = reinterpret_cast<const float4*>(A + row * K);
            const auto* x4 = reinterpret_cast<const float4*>(x);
            for (std::int64_t k = lane; k < K / 4; k += G) sum += dot4(a4[k], __ldg(&x4[k]));
        } else {
            const float* a = A + row * K;
            for (std::int64_t k = lane; k < K; k += G) sum += a[k] * __ldg(&x[k]);
        }
    }
    sum = wb::warp_reduce_sum<G>(sum);   // every lane of the warp takes part
    if (row < M && lane == 0) y[row] = sum;
}

template <int G>
void launch(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M * G, kThreads));
    if (K % 4 == 0) {
        gemv_group_kernel<G, true><<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    } else {
        gemv_group_kernel<G, false><<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    }
    WB_CHECK_LAUNCH();
}

}   // namespace

void gemv_4_subwarp(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const std::int64_t vectors = wb::ceil_div<std::int64_t>(K, 4);
    if (vectors <= 1) {
        launch<1>(A, x, y, M, K, stream);
    } else if (vectors <= 2) {
        launch<2>(A, x, y, M, K, stream);
    } else if (vectors <= 4) {
        launch<4>(A, x, y, M, K, stream);
    } else if (vectors <= 8) {
        launch<8>(A, x, y, M, K, stream);
    } else if (vectors <= 16) {
        launch<16>(A, x, y, M, K, stream);
    } else {
        launch<32>(A, x, y, M, K, stream);
    }
}

}   // namespace WORKBOOK_TRACK
