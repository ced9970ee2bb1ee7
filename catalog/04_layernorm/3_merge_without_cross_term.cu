// Catalog, chapter 4, stage 3: a hand-written Welford merge that adds the two m2 and drops delta^2 nA nB / n.
// expect: wrong "merge | variance is too small"
//
// The learner writes the warp merge from memory: counts add, the mean is the weighted mean, and "m2
// adds up too", m2 = m2A + m2B. The term delta^2 nA nB / n, the spread between the two partial means,
// is gone, so the variance keeps only the spread inside each lane's columns: a row of at most 32
// values (one per lane) gets variance 0 and rstd = 1 / sqrt(eps), a row of 1024 loses about 3% of its
// variance. The mean is right. These are ordinary rows (values near 1, no cancellation possible in a
// Welford update), so the grader must not send a learner who already uses Welford back to "use
// Welford's update"; it should point at the merge (the variance too small, the rows one value per
// lane at variance 0).
#include "04_layernorm/stages.cuh"
#include "04_layernorm/welford.cuh"
#include "common/primitives.cuh"

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

/// The learner's merge of two lanes' states (lower lane first, so that every lane gets the same bits).
__device__ __forceinline__ ch04::Welford merge(const ch04::Welford& a, const ch04::Welford& b)
{
    const float count = a.count + b.count;
    if (count == 0.0f) return a;
    ch04::Welford out;
    out.mean = a.mean + (b.mean - a.mean) * (b.count / count);
    out.m2 = a.m2 + b.m2;   // the bug: + (b.mean - a.mean)^2 * a.count * b.count / count is missing
    out.count = count;
    return out;
}

__global__ void __launch_bounds__(kThreads)
    layernorm_warp_welford_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                  const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                                  float* __restrict__ rstd, std::int64_t rows, std::int64_t cols, float eps)
{
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;   // warp-uniform
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    ch04::Welford state;
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) ch04::welford_update(state, xr[c]);
    for (int offset = wb::kWarpSize / 2; offset > 0; offset /= 2) {
        ch04::Welford other;
        other.mean = __shfl_xor_sync(wb::kFullWarpMask, state.mean, offset);
        other.m2 = __shfl_xor_sync(wb::kFullWarpMask, state.m2, offset);
        other.count = __shfl_xor_sync(wb::kFullWarpMask, state.count, offset);
        state = (lane & offset) ? merge(other, state) : merge(state, other);
    }

    const float mu = state.mean;
    const float r = rsqrtf(state.m2 / state.count + eps);
    if (lane == 0) {
        mean[row] = mu;
        rstd[row] = r;
    }
    for (std::int64_t c = lane; c < cols; c += wb::kWarpSize) yr[c] = (xr[c] - mu) * r * gamma[c] + beta[c];
}

}   // namespace

void layernorm_3_warp_welford(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                              std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    layernorm_warp_welford_kernel<<<blocks, kThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
    WB_CHECK_LAUNCH();
}

}   // namespace WORKBOOK_TRACK
