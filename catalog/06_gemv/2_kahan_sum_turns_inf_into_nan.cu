// Catalog, chapter 6, stage 2: each lane's sum compensated (Kahan), which turns an infinite product into NaN.
// expect: wrong "elements are wrong"
//
// The lesson's last interview question suggests Kahan summation for a more accurate dot product, and
// the learner adds it to the warp per row: each lane keeps a compensation c and adds
// `t = s + (p - c); c = (t - s) - (p - c); s = t`. On finite values it is right (more accurate than
// the reference, well inside the tolerance). But the contract allows any values, and an infinite
// element of A (an overflowed weight, a masked score) makes c = (inf - s) - inf = NaN, and the NaN then
// poisons every later step of that lane: the row's result is NaN where y[i] is +inf or -inf. A plain
// float sum, in any order, gives the infinity. A grader whose inputs are small integers and values in
// [-1, 1] only never sees it (an H200 and the CPU emulator passed it when this grader's were): it must
// have rows holding an infinity (a single one gives +-inf whatever the order of summation; two of
// opposite signs give NaN) and NaN, as it now has.
#include "06_gemv/stages.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

__global__ void gemv_kahan_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                  std::int64_t M, std::int64_t K)
{
    const int lane = threadIdx.x % wb::kWarpSize;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    if (row >= M) return;
    const float* a = A + row * K;
    float s = 0.0f, c = 0.0f;   // the running sum and its compensation
    for (std::int64_t k = lane; k < K; k += wb::kWarpSize) {
        const float p = a[k] * x[k] - c;
        const float t = s + p;
        c = (t - s) - p;   // the bug: inf - inf = NaN once p is infinite, and NaN sticks
        s = t;
    }
    s = wb::warp_reduce_sum(s - c);
    if (lane == 0) y[row] = s;
}

}   // namespace

void gemv_2_warp_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(M, kRowsPerBlock));
    gemv_kahan_kernel<<<blocks, kThreads, 0, stream>>>(A, x, y, M, K);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
