// Catalog, chapter 6, stage 2: stage 1's thread per row handed in as stage 2 (uncoalesced reads of A).
// expect: too-slow "too slow"
// emulated: passed "uncoalesced (counted on the CPU emulator)"
//
// Right values, wrong idea: the lanes of a warp read rows K floats apart, so every load of A touches 32
// sectors for 128 useful bytes. On a GPU it stays at the speed of stage 1, far below the x3 the stage
// asks. On the CPU emulator the counters see the reads: several times the sectors per 128 bytes of
// reference stage 2 (a warp per row), so the stage passes with the advice "uncoalesced".
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;

__global__ void gemv_thread_per_row_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                           float* __restrict__ y, std::int64_t M, std::int64_t K)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= M) return;
    const float* a = A + row * K;
    float sum = 0.0f;
    for (std::int64_t k = 0; k < K; ++k) sum += a[k] * x[k];
    y[row] = sum;
}

}   // namespace

void gemv_2_warp_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, kThreads));
    gemv_thread_per_row_kernel<<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
