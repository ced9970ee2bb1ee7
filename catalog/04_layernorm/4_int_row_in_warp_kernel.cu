// Catalog, chapter 4, stage 4: the warp's row held in an int, so row * cols is multiplied in 32 bits.
// expect: crashed "32 bits"
// emulated: skip "the emulated sizes stay far below 2^31 elements, the GPU grader checks 2,359,301 x 1000"
//
// The reference stage 4 with `int row = blockIdx.x * kRowsPerBlock + threadIdx.x / 32`: the row number
// itself always fits in an int (rows < 2^31), which is why a learner sees no harm in it. But the kernel
// also takes `int cols` (its register array is sized for at most 1024 columns), so `x + row * cols`
// multiplies two ints and wraps once the product passes 2^31 - 1. Every matrix of the small cases and
// of the timing (at most 65536 x 1024 = 2^26 elements) stays far below, and the stage passes them all.
// The grader's case past the int range, 2,359,301 x 1000 on a GPU with 22 GiB free (x and y: 17.6 GiB),
// reaches it: from row 2,147,484 on the offset is about -2^31, an address 8 GiB before x where nothing
// is mapped, and the first vector load of such a row faults. The grader must name the 32-bit index. On a
// GPU without the memory the case is skipped and this entry passes.
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
    const int row = blockIdx.x * kRowsPerBlock + threadIdx.x / wb::kWarpSize;   // fits: rows < 2^31
    const int lane = threadIdx.x % wb::kWarpSize;
    if (row >= rows) return;            // warp-uniform
    const float* xr = x + row * cols;   // the bug: int row times int cols, computed in 32 bits
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

    float squares = 0.0f;   // second pass, over registers: only the elements inside the row count
#pragma unroll
    for (int p = 0; p < kPacks; ++p) {
        const int col = (p * wb::kWarpSize + lane) * kPack;
        if (col < cols) {
#pragma unroll
            for (int i = 0; i < kPack; ++i) {
                const float d = v[p * kPack + i] - mu;
                squares += d * d;
            }
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
