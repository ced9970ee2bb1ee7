// Catalog, chapter 4, stage 4: the row in registers, the zero padding of the last packs counted in the second pass.
// expect: wrong "padding | variance is too large"
//
// The register array of a lane is sized for the longest row (a power of two of packs), and the
// slots past the end of the row are filled with 0 so that the first pass can add them harmlessly. The
// second pass then runs over the whole array as well: every padding slot adds (0 - mean)^2 to the
// sum of squares, and the variance grows by p * mean^2 / n, p being the number of padding slots of
// the warp (README, "Common bugs"). Rows whose length fills the array (1024, 512, 256 ...) are right,
// every other row whose mean is not 0 is not. The mean is right and rstd is too small by a rule the
// grader can recognise (an integer number of mean^2 / n too much variance, the same in every row of a
// shape); it must name the padding, not cancellation: these rows have values near 1, not near 1e4.
#include "04_layernorm/stages.cuh"
#include "common/primitives.cuh"

#include <stdexcept>

namespace WORKBOOK_TRACK {

namespace {

constexpr int kThreads = 128;
constexpr int kRowsPerBlock = kThreads / wb::kWarpSize;

template <int kPack>
using Pack = wb::Pack<float, kPack>;   // kPack floats moved as one access (common/primitives.cuh)

template <int kPack, int kColsPerLane>
__global__ void __launch_bounds__(kThreads)
    layernorm_warp_registers_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                    const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                                    float* __restrict__ rstd, std::int64_t rows, int cols, float eps)
{
    static_assert(kColsPerLane % kPack == 0, "a lane holds whole packs");
    constexpr int kPacks = kColsPerLane / kPack;
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / wb::kWarpSize;
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;   // warp-uniform
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float v[kColsPerLane];   // constant indices only, so this lives in registers
    float sum = 0.0f;
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
        const int col = (p * wb::kWarpSize + lane) * kPack;
        if (col < cols) {   // cols % kPack == 0: whole packs only
            const Pack<kPack> pack = *reinterpret_cast<const Pack<kPack>*>(xr + col);
#pragma unroll
            for (int i = 0; i < kPack; ++i) v[p * kPack + i] = pack.v[i];
        } else {
#pragma unroll
            for (int i = 0; i < kPack; ++i) v[p * kPack + i] = 0.0f;
        }
#pragma unroll
        for (int i = 0; i < kPack; ++i) sum += v[p * kPack + i];
    }
    const float n = static_cast<float>(cols);
    const float mu = wb::warp_reduce_sum(sum) / n;

    float squares = 0.0f;   // second pass, over registers
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
#pragma unroll
        for (int i = 0; i < kPack; ++i) {   // the bug: the padding slots (0) are counted too
            const float d = v[p * kPack + i] - mu;
            squares += d * d;
        }
    }
    const float r = rsqrtf(wb::warp_reduce_sum(squares) / n + eps);
    if (lane == 0) {
        mean[row] = mu;
        rstd[row] = r;
    }

#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
        const int col = (p * wb::kWarpSize + lane) * kPack;
        if (col < cols) {
            const Pack<kPack> g = *reinterpret_cast<const Pack<kPack>*>(gamma + col);
            const Pack<kPack> b = *reinterpret_cast<const Pack<kPack>*>(beta + col);
            Pack<kPack> out;
#pragma unroll
            for (int i = 0; i < kPack; ++i) out.v[i] = (v[p * kPack + i] - mu) * r * g.v[i] + b.v[i];
            *reinterpret_cast<Pack<kPack>*>(yr + col) = out;
        }
    }
}

template <int kPack, int kColsPerLane>
void launch(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
            std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    const auto blocks = static_cast<unsigned>(wb::ceil_div<std::int64_t>(rows, kRowsPerBlock));
    layernorm_warp_registers_kernel<kPack, kColsPerLane>
        <<<blocks, kThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, static_cast<int>(cols), eps);
    WB_CHECK_LAUNCH();
}

/// Picks the smallest register array (a power of two, at least one pack) that holds cols / 32.
template <int kPack>
void dispatch_cols(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                   std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    const std::int64_t per_lane = wb::ceil_div<std::int64_t>(cols, wb::kWarpSize);
    if constexpr (kPack <= 1) {
        if (per_lane <= 1) return launch<kPack, 1>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    }
    if constexpr (kPack <= 2) {
        if (per_lane <= 2) return launch<kPack, 2>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    }
    if (per_lane <= 4) return launch<kPack, 4>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    if (per_lane <= 8) return launch<kPack, 8>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    if (per_lane <= 16) return launch<kPack, 16>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    launch<kPack, 32>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
}

}   // namespace

void layernorm_4_warp_registers(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                float* rstd, std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream)
{
    if (cols > ch04::kWarpRegistersMaxCols) {
        throw std::invalid_argument("layernorm_4_warp_registers supports cols <= 1024");
    }
    if (cols % 4 == 0) return dispatch_cols<4>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    if (cols % 2 == 0) return dispatch_cols<2>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    dispatch_cols<1>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
}

}   // namespace WORKBOOK_TRACK
